/**
 * Runs `fn` at most once per `intervalMs`, always with the latest state:
 * status text under a node should follow a burst of events without sending
 * one editor update per event.
 */
export interface Throttled {
  (): void;
  /** Runs a pending call now and stops the timer. */
  flush(): void;
  cancel(): void;
}

export function throttle(fn: () => void, intervalMs: number): Throttled {
  let timer: NodeJS.Timeout | undefined;
  let pending = false;
  let last = 0;
  const run = (): void => {
    timer = undefined;
    pending = false;
    last = Date.now();
    fn();
  };
  const call = (() => {
    if (timer) {
      pending = true;
      return;
    }
    const wait = last + intervalMs - Date.now();
    if (wait <= 0) run();
    else {
      pending = true;
      timer = setTimeout(run, wait);
    }
  }) as Throttled;
  call.flush = () => {
    if (timer) clearTimeout(timer);
    if (pending) run();
    timer = undefined;
  };
  call.cancel = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    pending = false;
  };
  return call;
}
