/**
 * The bounds of one receiver's events in flight, in number and in bytes,
 * shared by every way of keeping them (memory, disk, a Redis stream): events
 * being taken (body read, being checked and written) count from the moment
 * they are staged, so concurrent requests see the bounds too.
 */
import type { DeliveryId, StagedDelivery } from './types';

/** Why an event cannot be taken now; the receiver answers 503 with Retry-After. */
export class BusyError extends Error {
  readonly code = 'ERR_DELIVERY_BUSY';
  constructor(
    readonly reason: 'events' | 'bytes' | 'journal' | 'stream',
    message: string,
  ) {
    super(message);
  }
}

export class InFlightBudget {
  private staged = 0;
  private held = 0;

  /** `heldEvents`: how many events are held now (taken and not finished), staged ones aside. */
  constructor(
    private readonly maxEvents: number,
    private readonly maxBytes: number,
    private readonly heldEvents: () => number,
  ) {}

  /** Bytes of the events held and staged. */
  get bytes(): number {
    return this.held;
  }

  /** Events that still fit now. */
  get room(): number {
    return this.maxEvents - this.heldEvents() - this.staged;
  }

  /**
   * Throws BusyError when an event of `bytes` (its declared size, if known)
   * would not fit now: called before its body is read, so a burst past the
   * bounds is refused without reading megabytes first.
   */
  check(bytes = 0): void {
    const events = this.heldEvents() + this.staged;
    if (events >= this.maxEvents) throw new BusyError('events', `${events} events are in flight, the limit of this receiver`);
    if (this.held + bytes > this.maxBytes && events > 0) {
      throw new BusyError('bytes', `events in flight hold ${this.held} bytes, the limit is ${this.maxBytes}`);
    }
  }

  /** Counts the bytes of an event held without being staged (recovered, claimed, adopted) or given back. */
  add(bytes: number): void {
    this.held += bytes;
  }

  remove(bytes: number): void {
    this.held -= bytes;
  }

  /**
   * Stages an event of `bytes` (BusyError when it does not fit): `commit`
   * runs `write`, which keeps the event and answers its id (the bytes given
   * back if it fails), or `{ absorbed }` with the id of the copy held already
   * (a resend: the bytes given back, `absorbed` set); `abandon` gives them
   * back and runs `onAbandon`.
   */
  stage<M>(
    bytes: number,
    write: (meta: M, event: unknown) => Promise<DeliveryId | { absorbed: DeliveryId }>,
    onAbandon?: () => void,
  ): StagedDelivery<M> {
    this.check(bytes);
    this.held += bytes;
    this.staged++;
    let settled = false;
    const staged: StagedDelivery<M> & { absorbed: boolean } = {
      absorbed: false,
      commit: async (meta, event) => {
        if (settled) throw new Error('already settled');
        settled = true;
        try {
          const written = await write(meta, event);
          if (typeof written !== 'object') return written;
          this.held -= bytes;
          staged.absorbed = true;
          return written.absorbed;
        } catch (err) {
          this.held -= bytes;
          throw err;
        } finally {
          // Still counted while it is written: then held, or given back.
          this.staged--;
        }
      },
      abandon: () => {
        if (settled) return;
        settled = true;
        this.staged--;
        this.held -= bytes;
        onAbandon?.();
      },
    };
    return staged;
  }
}
