/**
 * detection-in's dead letters on Node-RED's admin API, for its dialog (and
 * anyone with the editor's credentials): GET lists them, POST …/replay and
 * …/discard act on `{ids}` or on all; GET with `?optional=1` (the dialog)
 * answers a node not deployed with an empty list instead of a 404. And what
 * removed receivers left: GET …/stranded lists it, POST …/stranded/:id/replay
 * `{to}` hands it to a running receiver, GET …/held/:id counts what a
 * receiver holds (the dialog warns before it is deleted). The rules are
 * lib/delivery/dead-letters.ts; docs/nodes/detection-in.md lists the routes.
 */
import type { NodeAPI } from 'node-red';
import type { Request, Response } from 'express';
import { deadLetterAction, strandedAction } from '../../lib/delivery';
import { problem, PROBLEM_CONTENT_TYPE } from '../../lib/http';

const BASE = '/detection-bridge';
type Answer = { status: number; body: unknown };

export function serveDeadLetters(RED: NodeAPI): void {
  const reply = (res: Response, status: number, body: unknown): void => {
    if (status === 503) res.set('Retry-After', '1');
    res
      .status(status)
      .type(status === 200 ? 'application/json' : PROBLEM_CONTENT_TYPE)
      .send(JSON.stringify(body));
  };
  const answer = (act: (req: Request) => Promise<Answer>) => (req: Request, res: Response) => {
    act(req).then(
      (out) => reply(res, out.status, out.body),
      (err: Error) => reply(res, 500, problem('internal', err.message)),
    );
  };
  const [read, write] = [RED.auth.needsPermission('detection-in.read'), RED.auth.needsPermission('detection-in.write')];
  const letters = (action: 'list' | 'replay' | 'discard') =>
    answer((req) => deadLetterAction(String(req.params.id), action, req.body, undefined, req.query.optional === '1'));
  RED.httpAdmin.get(`${BASE}/dead-letters/:id`, read, letters('list'));
  RED.httpAdmin.post(`${BASE}/dead-letters/:id/replay`, write, letters('replay'));
  RED.httpAdmin.post(`${BASE}/dead-letters/:id/discard`, write, letters('discard'));
  RED.httpAdmin.get(
    `${BASE}/stranded`,
    read,
    answer(() => strandedAction('list')),
  );
  RED.httpAdmin.post(
    `${BASE}/stranded/:id/replay`,
    write,
    answer((req) => strandedAction('replay', String(req.params.id), req.body)),
  );
  RED.httpAdmin.get(
    `${BASE}/held/:id`,
    read,
    answer((req) => strandedAction('held', String(req.params.id))),
  );
}
