/**
 * Text for a node, always from the message catalogs (locales/): the node's
 * own keys (`status.counts` → RED._('<type>.status.counts')) and lib's
 * Messages and errors, whose keys the build merges into every catalog. RED._
 * speaks the runtime's language (debug sidebar, Catch nodes, log); a status
 * without figures goes as its key, for the editor's (statusText).
 */
import type { NodeAPI } from 'node-red';
import { isMessage, renderMessage, type Message, type Translate } from '../../lib/core';

export type Vars = Record<string, string | number>;

/** `t(key, vars)` for one node type: RED._ on `<type>.<key>`. */
export function nodeText(RED: NodeAPI, type: string): (key: string, vars?: Vars) => string {
  return (key, vars) => RED._(`${type}.${key}`, vars);
}

/**
 * `s(key, vars)` for a node's status: a text without figures is sent as its
 * catalog key (`<type>.<key>`), which the editor translates into the language
 * it shows, as Node-RED's core nodes do (`node-red:common.status.connected`);
 * a text with figures is made here, in the runtime's language (settings.js
 * `lang`, else the process's locale: LC_ALL, LC_MESSAGES, LANG), because the
 * editor translates a key without parameters only.
 */
export function statusText(RED: NodeAPI, type: string): (key: string, vars?: Vars) => string {
  return (key, vars) => (vars === undefined || Object.keys(vars).length === 0 ? `${type}.${key}` : RED._(`${type}.${key}`, vars));
}

/** RED._ as a Translate for lib's Messages. */
export function translator(RED: NodeAPI): Translate {
  return (key, params) => RED._(key, params);
}

/** A lib Message in the user's language. */
export function translate(RED: NodeAPI, message: Message): string {
  return renderMessage(message, translator(RED));
}

/** An Error for done(err) and node.error(err, msg): `message` in the user's language, `code` kept. */
export function coded(message: string, code: string, extra?: Record<string, unknown>): Error & { code: string } {
  return Object.assign(new Error(message), { code }, extra);
}

/**
 * Any failure as an Error Catch nodes can show: an error that is a lib
 * Message (a TransportError, an ImageError) gets its text in the user's
 * language with its `code`; another Error is passed on; anything else thrown
 * (JSONata throws plain objects) becomes an Error with its message.
 */
export function flowError(RED: NodeAPI, err: unknown): Error {
  if (err instanceof Error && isMessage(err)) {
    const code = (err as { code?: unknown }).code;
    return coded(translate(RED, err), typeof code === 'string' ? code : 'ERR_DETECTION_BRIDGE', { cause: err });
  }
  if (err instanceof Error) return err;
  const message = (err as { message?: unknown } | null)?.message;
  return new Error(typeof message === 'string' ? message : String(err));
}
