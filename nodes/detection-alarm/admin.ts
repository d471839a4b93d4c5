/**
 * detection-alarm's book on Node-RED's admin API, for its dialog (and anyone
 * with the editor's credentials): GET /detection-bridge/alarms/:id answers
 * the open alarms, the snoozes, the armed state and the history (who did
 * what, newest first); `?optional=1` (the dialog) answers a node not
 * deployed with an empty book instead of a 404.
 */
import type { NodeAPI } from 'node-red';
import type { Request, Response } from 'express';
import { problem, PROBLEM_CONTENT_TYPE } from '../../lib/http';

type Listing = () => Promise<Record<string, unknown>>;

/** The running alarm nodes' listings, by node id. */
const listings = new Map<string, Listing>();

export function listAlarms(nodeId: string, listing: Listing): { remove(): void } {
  listings.set(nodeId, listing);
  return {
    remove: () => {
      if (listings.get(nodeId) === listing) listings.delete(nodeId);
    },
  };
}

/** Once per runtime, when the node type registers: a dialog asks before any alarm node is deployed. */
export function serveAlarmAdmin(RED: NodeAPI): void {
  RED.httpAdmin.get('/detection-bridge/alarms/:id', RED.auth.needsPermission('detection-alarm.read'), (req: Request, res: Response) => {
    const listing = listings.get(String(req.params.id));
    if (!listing) {
      if (req.query.optional === '1') {
        res.json({ deployed: false, alarms: [], snoozes: [], armed: true, held: 0, history: [] });
        return;
      }
      res
        .status(404)
        .type(PROBLEM_CONTENT_TYPE)
        .send(JSON.stringify(problem('notFound', `no deployed alarm node ${String(req.params.id)}`)));
      return;
    }
    listing().then(
      (book) => res.json({ deployed: true, ...book }),
      (err: Error) =>
        res
          .status(500)
          .type(PROBLEM_CONTENT_TYPE)
          .send(JSON.stringify(problem('internal', err.message))),
    );
  });
}
