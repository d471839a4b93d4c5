/** What every store does when it adopts what another left unfinished: take each event as a new one. */
import type { DeliveryId, DeliveryRecord, StagedDelivery } from './types';

/**
 * Takes each record in turn through `stage` and commit; resolves with those taken. One refused
 * (past a bound, the store unreachable) is dropped, and a copy of an event held already is not
 * taken twice: the held one stands for it.
 */
export async function takeEach<M>(
  store: { stage(journalMeta: unknown, body: Buffer | undefined): StagedDelivery<M> },
  records: DeliveryRecord<M>[],
): Promise<Array<{ record: DeliveryRecord<M>; id: DeliveryId }>> {
  const taken: Array<{ record: DeliveryRecord<M>; id: DeliveryId }> = [];
  for (const record of records) {
    let staged: StagedDelivery<M>;
    try {
      staged = store.stage(record.meta, record.body);
    } catch {
      continue;
    }
    // A record read from bytes (a journal, a stream) handed to a store that holds events by reference: parsed here.
    const event = record.event ?? (record.body ? parsed(record.body) : undefined);
    const id = await staged.commit(record.meta, event).catch(() => undefined);
    if (id !== undefined && !staged.absorbed) taken.push({ record, id });
  }
  return taken;
}

function parsed(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}
