/**
 * How strictly an incoming event is checked. One schema (schemas.ts) serves
 * every mode: lenient turns the spec's issues into warnings, except those that
 * leave a flow without what it cannot do without (what the event is and who,
 * where and when it was seen).
 *
 * Why lenient is the default: the bridge treats any answer outside 2xx as a
 * failed delivery and a resilient WebHook retries it about once a second, for
 * ever. Refusing a real event for a cosmetic reason loses the alert and starts
 * an endless loop of 1 MB retries.
 */
import { kindOfPublishType, type EventKind } from '../core/event-kinds';
import { formatPath, type SchemaError } from '../core/schema-error';
import { DetectionEvent, kindOf } from '../events';

export type ValidationMode = 'lenient' | 'strict' | 'accept';
export const VALIDATION_MODES: readonly ValidationMode[] = ['lenient', 'strict', 'accept'];

/** A property the event has, but spelt in another case than the spec's camelCase. */
export interface WrongCase {
  /** Where the property was expected, e.g. `publishType`, `payload.lprPlateInfo`. */
  path: string;
  /** The name as sent, e.g. `PublishType`. */
  found: string;
  /** The name the spec uses, e.g. `publishType`. */
  expected: string;
}

export type ValidationResult =
  { ok: true; event: DetectionEvent; kind: EventKind; warnings: SchemaError[] } | { ok: false; errors: SchemaError[]; wrongCase: WrongCase[] };

/** Places a flow cannot do without, for both kinds and for each kind. A
 *  missing parent (`payload.detectionInfo`) fails its identity fields too. */
const IDENTITY_COMMON = new Set([
  '(root)',
  'publishType',
  'payload',
  'payload.detectionInfo',
  'payload.detectionInfo.detectorName',
  'payload.detectionInfo.dateTimeUtc',
]);
const IDENTITY_BY_KIND: Record<EventKind, ReadonlySet<string>> = {
  face: new Set(['payload.personInfo', 'payload.personInfo.faceId']),
  lpr: new Set(['payload.lprPlateInfo', 'payload.lprPlateInfo.plate']),
};

function isIdentityPath(path: string, kind: EventKind): boolean {
  return IDENTITY_COMMON.has(path) || IDENTITY_BY_KIND[kind].has(path);
}

function publishTypeKind(value: unknown): EventKind | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  return kindOfPublishType((value as { publishType?: unknown }).publishType);
}

/** The properties missing at `path` that the event carries in another case. */
function findWrongCase(root: unknown, issuePaths: ReadonlyArray<ReadonlyArray<PropertyKey>>): WrongCase[] {
  const found: WrongCase[] = [];
  for (const path of issuePaths) {
    const last = path[path.length - 1];
    if (typeof last !== 'string') continue;
    let parent: unknown = root;
    for (const key of path.slice(0, -1)) {
      parent = parent !== null && typeof parent === 'object' ? (parent as Record<PropertyKey, unknown>)[key] : undefined;
    }
    if (parent === null || typeof parent !== 'object' || Object.prototype.hasOwnProperty.call(parent, last)) continue;
    const wanted = last.toLowerCase();
    const other = Object.keys(parent).find((key) => key.toLowerCase() === wanted);
    if (other !== undefined) found.push({ path: formatPath(path), found: other, expected: last });
  }
  return found;
}

function wrongCaseNote(wrong: WrongCase): string {
  return `"${wrong.found}" is present in another case: the events bridge sends camelCase names ("${wrong.expected}")`;
}

/**
 * Checks a parsed body. `strict` and `accept` refuse any deviation from the
 * spec (what the receiver answers differs, not the check); `lenient` refuses
 * only a body that is not an event a flow can use and lists the rest as
 * warnings. On success `event` is the value passed in, never a copy.
 */
export function validateEvent(value: unknown, mode: ValidationMode): ValidationResult {
  const result = DetectionEvent.safeParse(value);
  if (result.success) {
    const event = value as DetectionEvent;
    return { ok: true, event, kind: kindOf(event), warnings: [] };
  }
  const issues = result.error.issues;
  const wrongCase = findWrongCase(
    value,
    issues.map((issue) => issue.path),
  );
  const describe = (path: ReadonlyArray<PropertyKey>, message: string): SchemaError => {
    const formatted = formatPath(path);
    const wrong = wrongCase.find((w) => w.path === formatted);
    return { path: formatted, message: wrong ? `${message}; ${wrongCaseNote(wrong)}` : message };
  };
  const kind = publishTypeKind(value);
  if (mode !== 'lenient' || kind === undefined || issues.some((issue) => isIdentityPath(formatPath(issue.path), kind))) {
    return { ok: false, errors: issues.map((issue) => describe(issue.path, issue.message)), wrongCase };
  }
  return {
    ok: true,
    event: value as DetectionEvent,
    kind,
    warnings: issues.map((issue) => describe(issue.path, issue.message)),
  };
}
