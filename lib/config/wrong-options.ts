/**
 * A saved option its node cannot use as it is (a flow edited by hand or
 * written by a program: `ttl: "soon"`), said once for every node type: the
 * node runs with another value (readNodeOptions, lib/config/node-options.ts),
 * and the warning at deploy names the node, the option, the value saved and
 * the value used instead, so nothing changes silently. A missing option is
 * not wrong (a flow saved before it existed) and says nothing.
 */
import { message, type Message } from '../core/messages';
import { readNodeOptions, type NodeType, type WrongOption } from './node-options';

/** A value as a person reads it in a message: text quoted, as JSON writes it; nothing as the catalog's word. */
function shown(value: unknown): string | Message {
  if (value === undefined) return message('options.nothing');
  const json = JSON.stringify(value);
  return json === undefined ? String(value) : json;
}

/** The warning about one wrong option of `node` (the node as a person names it: its palette label and name). */
export function wrongOptionMessage(node: string, wrong: WrongOption): Message {
  return message('options.wrong', {
    node,
    option: wrong.option,
    value: shown(wrong.value),
    used: shown(wrong.used),
    problem: message(`options.${wrong.problem.key}`, wrong.problem.params),
  });
}

/** The warnings a node of `type` saved as `config` gives at deploy: one per option it runs with another value. */
export function wrongOptionMessages(type: NodeType, config: object, node: string): Message[] {
  return readNodeOptions(type, config).wrong.map((wrong) => wrongOptionMessage(node, wrong));
}
