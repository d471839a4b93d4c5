/**
 * detection-in's dead letters on Node-RED's admin API, for its dialog (and
 * anyone with the editor's credentials): GET lists them, POST …/replay and
 * …/discard act on `{ids}` or on all. What they do is lib/delivery/dead-letters.ts. GET with
 * `?optional=1` (the dialog) answers a node not deployed with an empty list instead of a 404, which
 * a browser would log as an error.
 */
import type { NodeAPI } from 'node-red';
import type { Request, Response } from 'express';
import { deadLetterAction, type DeadLetterAction } from '../../lib/delivery';
import { problem, PROBLEM_CONTENT_TYPE } from '../../lib/http';

const BASE = '/detection-bridge/dead-letters/:id';

export function serveDeadLetters(RED: NodeAPI): void {
  const answer = (action: DeadLetterAction) => (req: Request, res: Response) => {
    deadLetterAction(String(req.params.id), action, req.body, undefined, req.query.optional === '1')
      .then((out) => {
        if (out.status === 503) res.set('Retry-After', '1');
        res
          .status(out.status)
          .type(out.status === 200 ? 'application/json' : PROBLEM_CONTENT_TYPE)
          .send(JSON.stringify(out.body));
      })
      .catch((err: Error) => {
        res
          .status(500)
          .type(PROBLEM_CONTENT_TYPE)
          .send(JSON.stringify(problem('internal', err.message)));
      });
  };
  RED.httpAdmin.get(BASE, RED.auth.needsPermission('detection-in.read'), answer('list'));
  RED.httpAdmin.post(`${BASE}/replay`, RED.auth.needsPermission('detection-in.write'), answer('replay'));
  RED.httpAdmin.post(`${BASE}/discard`, RED.auth.needsPermission('detection-in.write'), answer('discard'));
}
