/**
 * Lets a warning about a place in an event through once per period, so a
 * sender that gets one field wrong in every event fills neither the debug
 * sidebar nor the log. Places differing only in an array index count as one
 * (`detectionImages[2].cropSizeName` and `[3]` are the same mistake). The set
 * of places remembered is bounded.
 */
import { systemClock, type Clock } from '../core/clock';
import type { SchemaError } from '../core/schema-error';

export const DEFAULT_WARNING_PERIOD_MS = 60_000;
const MAX_PLACES = 500;

export interface WarningGate {
  /** The warnings among `warnings` whose place was not reported within the period. */
  pass(warnings: readonly SchemaError[]): SchemaError[];
}

/** `payload.detectionImages[2].cropSizeName` → `payload.detectionImages[].cropSizeName`. */
export function warningPlace(path: string): string {
  return path.replace(/\[\d+\]/g, '[]');
}

export function createWarningGate(periodMs = DEFAULT_WARNING_PERIOD_MS, clock: Clock = systemClock): WarningGate {
  /** place → when it was last let through; oldest first (Map keeps insertion order). */
  const lastShown = new Map<string, number>();
  return {
    pass(warnings) {
      const now = clock.now();
      const out: SchemaError[] = [];
      for (const warning of warnings) {
        const place = warningPlace(warning.path);
        const last = lastShown.get(place);
        if (last !== undefined && now - last < periodMs) continue;
        lastShown.delete(place);
        lastShown.set(place, now);
        if (lastShown.size > MAX_PLACES) lastShown.delete(lastShown.keys().next().value as string);
        out.push(warning);
      }
      return out;
    },
  };
}
