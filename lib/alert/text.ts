/** What every sender is given, and cutting a text to a service's limit. */
import type { AlertButton } from './alarm-notice';
import type { AlertPicture } from './picture';

/** A link for people to follow (an alarm's page), in the words of the runtime's language. */
export interface AlertLink {
  url: string;
  /** A button's or link's text (`Acknowledge or snooze`). */
  label: string;
  /** The body's last line where a sender has no link of its own (`Acknowledge or snooze: <url>`). */
  line: string;
}

export interface AlertInput {
  subject: string;
  body: string;
  /** The picture to attach, if any. */
  picture: AlertPicture | null;
  urgent: boolean;
  /** The event's valid tags, without the account's prefix (ntfy shows them). */
  tags: readonly string[];
  link?: AlertLink;
  /** Buttons whose press comes back to the flow (Telegram's inline keyboard). */
  buttons?: readonly AlertButton[];
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

/** `text` cut to `max` with the link's line after it, whole: the link is what people act on. */
export function withLinkLine(text: string, max: number, link: AlertLink | undefined): string {
  if (!link) return cut(text, max);
  if (text === '') return cut(link.line, max);
  return `${cut(text, Math.max(1, max - link.line.length - 1))}\n${link.line}`;
}
