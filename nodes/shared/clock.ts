/**
 * The clock the nodes wait and stamp with: the system's, unless Node-RED's
 * settings give one (`detectionBridgeClock`, an object with now, setTimeout
 * and clearTimeout). Only tests set it, to drive the nodes' timers (presence
 * departures, a dedupe digest) with a fake clock instead of waiting.
 */
import type { NodeAPI } from 'node-red';
import { systemClock, type Clock } from '../../lib/core';

function isClock(value: unknown): value is Clock {
  const c = value as Partial<Clock> | null | undefined;
  return !!c && typeof c.now === 'function' && typeof c.setTimeout === 'function' && typeof c.clearTimeout === 'function';
}

export function clockOf(RED: NodeAPI): Clock {
  let configured: unknown;
  try {
    configured = (RED.settings as unknown as Record<string, unknown>).detectionBridgeClock;
  } catch {
    // Node-RED's settings throw for a setting that is not there
    configured = undefined;
  }
  return isClock(configured) ? configured : systemClock;
}
