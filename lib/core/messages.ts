/**
 * Every text lib/ shows a person lives in locales/<lang>/shared.json, not in
 * code. An error or a problem carries a Message: a catalog key and its
 * parameters. A node translates it with RED._ (the build merges shared.json
 * into each node's catalog); everyone else (the simulator, scripts, library
 * users, the HTTP answers of the receiver) gets the en-US text from
 * `renderMessage`, so the two can never drift apart.
 */
import catalog from '../../locales/en-US/shared.json';

/** A parameter is text, a number, or a message of its own (rendered first). */
export type MessageParam = string | number | Message;
export type MessageParams = Readonly<Record<string, MessageParam>>;

export interface Message {
  /** Dotted catalog key, e.g. `transport.platform.timeout`. */
  readonly key: string;
  readonly params?: MessageParams;
}

/** Looks a key up in a catalog the way Node-RED's i18next does: the key itself when missing. */
export type Translate = (key: string, params?: Record<string, string | number>) => string;

function lookup(key: string): string | undefined {
  let node: unknown = catalog;
  for (const part of key.split('.')) node = node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined;
  return typeof node === 'string' ? node : undefined;
}

/** The en-US catalog, with Node-RED's `__name__` placeholders and its
 *  `key_plural` form chosen by a `count` other than 1. */
export const translateEnglish: Translate = (key, params = {}) => {
  const plural = params.count !== undefined && Number(params.count) !== 1 ? lookup(`${key}_plural`) : undefined;
  const text = plural ?? lookup(key);
  if (text === undefined) return key;
  return text.replace(/__(\w+)__/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
};

export function isMessage(value: unknown): value is Message {
  return value !== null && typeof value === 'object' && typeof (value as Message).key === 'string';
}

/** A message as text: nested messages first, then the message itself, with `translate`. */
export function renderMessage(message: Message, translate: Translate = translateEnglish): string {
  const flat: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(message.params ?? {})) {
    flat[name] = isMessage(value) ? renderMessage(value, translate) : value;
  }
  return translate(message.key, flat);
}

/** An error that is a Message: its text is the en-US rendering, a node translates `key` and `params`. */
export class MessageError extends Error implements Message {
  constructor(
    readonly key: string,
    readonly params: MessageParams,
    options?: ErrorOptions,
  ) {
    super(renderMessage({ key, params }), options);
  }
}

/** A Message literal, checked to be in the catalog by the tests that render it. */
export function message(key: string, params?: MessageParams): Message {
  return params === undefined ? { key } : { key, params };
}
