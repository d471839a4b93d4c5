/**
 * The crop sizes of a plate image (`cropSizeName`) and a preference list of
 * them as a node's configuration holds it. Browser-safe (it imports nothing):
 * the picture dialogs (detection-image, detection-alert) run this very file,
 * served by nodes/shared/editor-script.ts, so they accept exactly the lists
 * the runtime reads.
 */

/** Values allowed for `cropSizeName` of a plate image, in the default order of preference. */
export const CROP_SIZE_NAMES = ['Close', 'Medium', 'Car', 'FullFrame', 'Other'] as const;
export type CropSize = (typeof CROP_SIZE_NAMES)[number];

/**
 * A crop preference list from the node's configuration: an array or a comma
 * list of known crop names, each at most once, at least one. Null when invalid.
 */
export function parseCropList(value: unknown): CropSize[] | null {
  const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : null;
  if (!items) return null;
  const out: CropSize[] = [];
  for (const item of items) {
    const name = typeof item === 'string' ? item.trim() : item;
    if (name === '' && !Array.isArray(value)) continue;
    if (!(CROP_SIZE_NAMES as readonly unknown[]).includes(name) || out.includes(name as CropSize)) return null;
    out.push(name as CropSize);
  }
  return out.length > 0 ? out : null;
}
