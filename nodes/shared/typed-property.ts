/**
 * Reads a TypedInput property (msg, flow, global, jsonata, env, …) of a
 * message the way Node-RED does, with the fast paths a node that runs on
 * every ~1 MB event wants: `msg` properties are read synchronously, and a
 * JSONata expression is prepared once, not per message.
 *
 * No Node-RED import: the node passes its `RED.util` in.
 */

/** The parts of `RED.util` this needs (structurally typed). */
export interface PropertyUtil {
  getMessageProperty(msg: object, expr: string): unknown;
  normalisePropertyExpression(expr: string): Array<string | number>;
  evaluateNodeProperty(value: string, type: string, node: object, msg: object, callback: (err: Error | null, result: unknown) => void): void;
  prepareJSONataExpression(value: string, node: object): unknown;
  evaluateJSONataExpression(expr: never, msg: object, callback: (err: Error | null, result: unknown) => void): void;
}

export type PropertyCallback = (err: Error | null, value?: unknown) => void;
export type PropertyReader = (msg: object, callback: PropertyCallback) => void;

/**
 * Builds a reader for one configured property. Throws (at deploy time) when a
 * `msg` property expression or a JSONata expression does not parse. The
 * callback may run synchronously.
 *
 * A `msg` path through a missing object (`payload.event` of a message without
 * a payload) reads as undefined, as it does for core nodes' TypedInputs.
 */
export function propertyReader(util: PropertyUtil, node: object, value: string, type: string): PropertyReader {
  if (type === 'msg' || !type) {
    const expr = value || 'payload';
    util.normalisePropertyExpression(expr);
    return (msg, callback) => {
      let result: unknown;
      try {
        result = util.getMessageProperty(msg, expr);
      } catch {
        result = undefined;
      }
      callback(null, result);
    };
  }
  if (type === 'jsonata') {
    const expr = util.prepareJSONataExpression(value, node) as never;
    return (msg, callback) => util.evaluateJSONataExpression(expr, msg, (err, result) => callback(err, result));
  }
  return (msg, callback) => util.evaluateNodeProperty(value, type, node, msg, (err, result) => callback(err, result));
}

/**
 * A reader for a TypedInput that has a type of its own for fixed choices
 * (`fixedType`: the methods, the sample kinds, or `str`): that type reads as
 * its value, at once; every other type (msg, flow, global, env, jsonata) is
 * read per message. A missing type counts as the fixed one.
 */
export function typedReader(util: PropertyUtil, node: object, value: string, type: string | undefined, fixedType: string): PropertyReader {
  if (!type || type === fixedType) return (_msg, callback) => callback(null, value);
  return propertyReader(util, node, value, type);
}

/** Where a TypedInput reads from, as a person writes it: `msg.kind`, `flow.site`, `env.POS_ID`, `J: expression`. */
export function typedLabel(type: string | undefined, value: string): string {
  if (type === 'msg' || type === 'flow' || type === 'global' || type === 'env') return `${type}.${value}`;
  if (type === 'jsonata') return `J: ${value}`;
  return value;
}

/** A value read from a message, for an error message: text quoted (and cut short), objects by kind. */
export function shownValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (value !== null && typeof value === 'object') return Array.isArray(value) ? 'an array' : 'an object';
  return String(value);
}

/** A property's value for one message, as a promise. */
export function readProperty(reader: PropertyReader, msg: object): Promise<unknown> {
  return new Promise((resolve, reject) => reader(msg, (err, value) => (err ? reject(err) : resolve(value))));
}
