/**
 * A schema failure as every checker reports it (events, platform pushes,
 * OpenAPI bodies, enrollments): where, as one dotted path, and what.
 */

/** One failing place: a dotted path (`payload.detectionInfo.confidence`,
 *  `payload.detectionImages[2].cropSizeName`) and what is wrong there. */
export interface SchemaError {
  path: string;
  message: string;
}

/** zod's (or ajv's split) path as one dotted path; `(root)` for the value itself. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out || '(root)';
}
