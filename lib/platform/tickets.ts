/**
 * A ticket is one add() to the push queue (a Node-RED message and its done).
 * Its items may travel in several batches; it settles once, when the last of
 * them is finished: ok when every batch succeeded.
 */
import type { TransportError } from '../http';
import type { TicketOutcome } from './push-types';

export interface TicketState<K> {
  ticket: K;
  items: number;
  remaining: number;
  failedItems: number;
  batches: number;
  errors: TransportError[];
  settled: boolean;
  resolve: (outcome: TicketOutcome<K>) => void;
}

export function openTicket<K>(ticket: K, items: number, resolve: (outcome: TicketOutcome<K>) => void): TicketState<K> {
  return { ticket, items, remaining: items, failedItems: 0, batches: 0, errors: [], settled: false, resolve };
}

/** Counts `n` of the ticket's items as finished by one batch (failed with `error`); true when none is left. */
export function chargeTicket<K>(state: TicketState<K>, n: number, error?: TransportError): boolean {
  state.remaining -= n;
  state.batches++;
  if (error) {
    state.failedItems += n;
    if (!state.errors.includes(error)) state.errors.push(error);
  }
  return state.remaining <= 0;
}

export function ticketOutcome<K>(state: TicketState<K>): TicketOutcome<K> {
  return {
    ticket: state.ticket,
    ok: state.errors.length === 0,
    items: state.items,
    failedItems: state.failedItems,
    batches: state.batches,
    error: state.errors[0],
    errors: [...state.errors],
  };
}
