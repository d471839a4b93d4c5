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

/** Admin apps served already: once each (a test harness makes a new one per run). */
const served = new WeakSet<object>();

export function serveAlarmAdmin(RED: NodeAPI): void {
  const app = RED.httpAdmin;
  if (!app || served.has(app)) return;
  served.add(app);
  app.get('/detection-bridge/alarms/:id', RED.auth.needsPermission('detection-alarm.read'), (req: Request, res: Response) => {
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
