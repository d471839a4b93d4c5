/** What every sender is given, and cutting a text to a service's limit. */
import type { AlertPicture } from './picture';

export interface AlertInput {
  subject: string;
  body: string;
  /** The picture to attach, if any. */
  picture: AlertPicture | null;
  urgent: boolean;
  /** The event's valid tags, without the account's prefix (ntfy shows them). */
  tags: readonly string[];
}

/** `text` cut to at most `max` UTF-16 units, ending in … when cut (never inside a surrogate pair). */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}

/** `text` cut to at most `max` bytes of UTF-8, ending in … when cut (whole characters only). */
export function cutBytes(text: string, max: number): string {
  if (Buffer.byteLength(text) <= max) return text;
  const budget = max - 3; // … is 3 bytes
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    const size = Buffer.byteLength(char);
    if (bytes + size > budget) break;
    bytes += size;
    end += char.length;
  }
  return `${text.slice(0, end)}…`;
}
