/**
 * The message contract (docs/nodes/detection-in.md, "Outputs"): the properties a
 * detection message carries, built here once for every node that emits
 * events, so a message from detection-in and one from detection-sample have
 * the same shape for the same event.
 *
 * `messageId` and `resent` are the event's own values, not coerced: the flow
 * sees what the bridge sent (a lenient receiver may let a deviating one
 * through, listed in msg.warnings); only a null messageId becomes undefined.
 * The typed and defensive reading is msg.detection's (./detection-view.ts).
 * Nothing is copied: `payload` is the event object as parsed.
 */
import { detectionView, type DetectionView } from './detection-view';
import type { EventKind, SchemaError } from './schemas';

/** The HTTP request an event came in: the sender's address and the headers, credentials removed. */
export interface EventRequest {
  ip: string | undefined;
  headers: Record<string, unknown>;
}

/** When and how an event arrived. */
export interface Receipt {
  /** ISO time of receipt (for a sample: when it was built or fetched). */
  receivedAt: string;
  /** Absent for an event that came in no request (a sample): the message then has no `req`. */
  req?: EventRequest;
}

/** A type, not an interface: assignable to Node-RED's message type. */
export type EventMessage = {
  /** The event as parsed. */
  payload: unknown;
  /** Its `publishType`. */
  topic: string | undefined;
  kind: EventKind;
  /** `payload.payload.messageId` as sent (a string from the bridge), undefined when absent or null. */
  messageId: unknown;
  /** `payload.payload.resentEvent` as sent (a boolean from the bridge). */
  resent: unknown;
  receivedAt: string;
  detection: DetectionView;
  req?: EventRequest;
};

/** An object's own property, or undefined for anything that is not an object. */
function propertyOf(value: unknown, name: string): unknown {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[name] : undefined;
}

function topicOf(value: unknown): string | undefined {
  const publishType = propertyOf(value, 'publishType');
  return typeof publishType === 'string' ? publishType : undefined;
}

/** The message for an event of `kind`: every property of the contract, in one object. */
export function eventMessage(event: unknown, kind: EventKind, receipt: Receipt): EventMessage {
  const inner = propertyOf(event, 'payload');
  const msg: EventMessage = {
    payload: event,
    topic: topicOf(event),
    kind,
    messageId: propertyOf(inner, 'messageId') ?? undefined,
    resent: propertyOf(inner, 'resentEvent'),
    receivedAt: receipt.receivedAt,
    detection: detectionView(event, kind, Date.parse(receipt.receivedAt)),
  };
  if (receipt.req) msg.req = receipt.req;
  return msg;
}

/** What a receiver sends on its second output for a request whose body is not a usable event. */
export type InvalidEventMessage = {
  /** The body as parsed. */
  payload: unknown;
  /** Its `publishType`, when it has one that is text. */
  topic: string | undefined;
  /** Why it is not an event: each place and what is wrong there. */
  errors: SchemaError[];
  receivedAt: string;
  req?: EventRequest;
};

export function invalidEventMessage(value: unknown, errors: SchemaError[], receipt: Receipt): InvalidEventMessage {
  const msg: InvalidEventMessage = { payload: value, topic: topicOf(value), errors, receivedAt: receipt.receivedAt };
  if (receipt.req) msg.req = receipt.req;
  return msg;
}
