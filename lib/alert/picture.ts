/**
 * The alert's one picture, chosen as detection image chooses it (lib/image)
 * and decoded to a Buffer. A missing or unreadable picture is no error: the
 * alert goes out without it, and says so.
 */
import { decodeImage, filenameBase, ImageError, imageFilename, pickImages, type PickOptions } from '../image';

export interface AlertPicture {
  data: Buffer;
  filename: string;
  contentType: string;
}

export type PictureResult =
  | { ok: true; picture: AlertPicture }
  /** The event has none of the images asked for. */
  | { ok: false; reason: 'none' }
  /** The image's base64 does not decode; `path` names it in the event. */
  | { ok: false; reason: 'unreadable'; path: string };

/** The first image `options` pick from `event`, decoded. `event` is a detection event (its kind known). */
export function alertPicture(event: unknown, options: PickOptions): PictureResult {
  // One picture per alert: the first in the order asked for.
  const picked = pickImages(event, { ...options, plateMode: 'first' });
  if (!picked.ok || picked.images.length === 0) return { ok: false, reason: 'none' };
  const [found] = picked.images;
  try {
    const { value, info } = decodeImage(found, 'buffer');
    const filename = imageFilename(filenameBase(event, picked.kind), info.source, info.contentType);
    return { ok: true, picture: { data: value as Buffer, filename, contentType: info.contentType } };
  } catch (err) {
    if (err instanceof ImageError) return { ok: false, reason: 'unreadable', path: err.path };
    throw err;
  }
}
