/**
 * Lets a warning about a place in an event through once per period, so a
 * sender that gets one field wrong in every event fills neither the debug
 * sidebar nor the log. Places differing only in an array index count as one
 * (`detectionImages[2].cropSizeName` and `[3]` are the same mistake). The set
 * of places remembered is bounded.
 */
import { systemClock, type Clock } from '../core/clock';
import { createRateLimit } from '../core/rate-limit';
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

/** The package's rate limit (lib/core/rate-limit.ts), one report a period per place. */
export function createWarningGate(periodMs = DEFAULT_WARNING_PERIOD_MS, clock: Clock = systemClock): WarningGate {
  const limit = createRateLimit({ periodMs, clock, maxKeys: MAX_PLACES });
  return {
    pass: (warnings) => warnings.filter((warning) => limit.pass(warningPlace(warning.path))),
  };
}
