/**
 * Which Content-Types carry JSON: `application/json`, any `application/*+json`
 * and `text/json`, in UTF-8. One rule for what the receiver accepts (which
 * also takes JSON sent as text/plain) and for how the clients read answers.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Message } from '../core/messages';

const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json$|^text\/json$/;

/** True for a JSON media type, parameters (`; charset=utf-8`) allowed. */
export function isJsonContentType(contentType: string | string[] | undefined): boolean {
  const value = Array.isArray(contentType) ? contentType[0] : contentType;
  if (!value) return false;
  return JSON_MEDIA_TYPE.test(value.split(';')[0].trim().toLowerCase());
}

/** Why a request cannot be JSON as sent, or null when it may be: no
 *  Content-Type at all, or a JSON type or `text/plain` in UTF-8, uncompressed.
 *  text/plain is what .NET's `new StringContent(json)` sends unless the
 *  developer names a media type. */
export function jsonRequestProblem(headers: IncomingHttpHeaders): Message | null {
  const encoding = headers['content-encoding'];
  if (encoding && encoding.toLowerCase() !== 'identity') return { key: 'answer.encoding', params: { encoding } };
  const declared = headers['content-type'];
  if (!declared) return null;
  const [type, ...params] = declared.split(';');
  const mediaType = type.trim().toLowerCase();
  if (!JSON_MEDIA_TYPE.test(mediaType) && mediaType !== 'text/plain') return { key: 'answer.content-type', params: { type: type.trim() } };
  for (const param of params) {
    const [name, value] = param.split('=').map((s) => s.trim().toLowerCase());
    const charset = value?.replace(/"/g, '');
    if (name === 'charset' && value && charset !== 'utf-8' && charset !== 'utf8') return { key: 'answer.charset', params: { charset: value } };
  }
  return null;
}
