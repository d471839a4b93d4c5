/**
 * What a store session (session.ts) keeps with an event and rebuilds its
 * message from: the facts the receiver computed once (kind, warnings,
 * messageId) carried in the stored meta, the same in every mode; an event
 * read back from bytes is parsed, and checked again only when its meta lacks
 * them (a journal written before they were carried).
 */
import type { EventKind, SchemaError } from '../events';
import type { Receipt } from '../events';
import { parseJsonBody } from '../http';
import type { AcceptedDelivery, DeliveryMeta } from '../receiver';
import { validateEvent } from '../receiver';
import type { DeliveryRecord } from './types';

/** What a message is rebuilt from besides the event; the journal holds only the request's part. */
export interface StoredMeta extends DeliveryMeta {
  kind?: EventKind;
  warnings?: SchemaError[];
  /** The event's payload.messageId: a resend of an event held unfinished is absorbed (resend.ts). */
  messageId?: string;
}

export type EmitMeta = StoredMeta & { kind: EventKind; warnings: SchemaError[] };

/** Event and meta of a stored record: by reference in memory, parsed (and checked for kind and warnings if need be) from stored bytes. */
export function restore(record: DeliveryRecord<StoredMeta>): { event: unknown; meta: EmitMeta } | undefined {
  let event = record.event;
  if (event === undefined) {
    const parsed = parseJsonBody(record.body ?? Buffer.alloc(0));
    if (!parsed.ok) return undefined;
    event = parsed.value;
  }
  const { kind, warnings } = record.meta;
  if (kind !== undefined && warnings !== undefined) return { event, meta: { ...record.meta, kind, warnings } };
  const checked = validateEvent(event, 'lenient');
  if (!checked.ok) return undefined;
  return { event, meta: { ...record.meta, kind: checked.kind, warnings: checked.warnings } };
}

export const receipt = (meta: DeliveryMeta): Receipt => ({ receivedAt: meta.receivedAt, req: { ip: meta.ip, headers: meta.headers } });

/** The meta kept with an accepted event: the fact computed once by the receiver, carried (kind, warnings, messageId). */
export function storedMeta(accepted: AcceptedDelivery): StoredMeta {
  const messageId = accepted.messageId;
  return { ...accepted.meta, kind: accepted.kind, warnings: accepted.warnings, ...(messageId ? { messageId } : {}) };
}
