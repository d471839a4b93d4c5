/**
 * The dialog's preview of a plate entry, on Node-RED's admin API:
 * GET <httpAdminRoot>/detection-bridge/plates/preview?entry=8OB123&lookalikes=1&extraMissing=0&classes=0ODQ%201I…&similar1Plate=true
 * answers what the entry accepts and refuses with those options (lib/plates/preview.ts,
 * the matcher a deployed node runs). It takes the options as the dialog
 * holds them, not a node's: it works in the dialog of a node not yet
 * deployed. Look-alike classes that cannot be used are answered with 200
 * and `problem` (the dialog shows it; an error status would be logged by the
 * browser as an error of the editor).
 */
import type { NodeAPI } from 'node-red';
import type { Request, Response } from 'express';
import { nodeOptions } from '../../lib/config';
import { DEFAULT_LOOKALIKE_CLASSES, parseLookalikeClasses, previewPlateEntry } from '../../lib/plates';
import { translate } from '../shared/i18n';

export const PREVIEW_PATH = '/detection-bridge/plates/preview';
/** An entry longer than this is cut: a plate is a dozen characters, not a page. */
const MAX_ENTRY = 64;

const query = (req: Request, name: string): string | undefined => {
  const value = req.query[name];
  return typeof value === 'string' ? value : undefined;
};

const serving = new WeakSet<object>();

export function servePlatePreview(RED: NodeAPI): void {
  const app = RED.httpAdmin;
  if (!app || serving.has(app)) return;
  serving.add(app);
  app.get(PREVIEW_PATH, RED.auth.needsPermission('detection-filter.read'), (req: Request, res: Response) => {
    // the options read with the node's rules: a value no dialog sends is read as a saved node's would be
    const options = nodeOptions('detection-filter', {
      plateLookalikes: query(req, 'lookalikes'),
      plateExtraMissing: query(req, 'extraMissing'),
      plateSimilar: query(req, 'similar1Plate'),
    });
    const lookalikes = Number(options.plateLookalikes);
    const parsed = parseLookalikeClasses(query(req, 'classes') ?? DEFAULT_LOOKALIKE_CLASSES);
    if (!parsed.ok && lookalikes > 0) {
      res.json({ problem: translate(RED, parsed.problem) });
      return;
    }
    const preview = previewPlateEntry((query(req, 'entry') ?? '').slice(0, MAX_ENTRY), {
      lookalikes,
      extraMissing: Number(options.plateExtraMissing),
      classes: parsed.ok ? parsed.lookalikes : undefined,
      similar1Plate: options.plateSimilar,
    });
    res.json(preview);
  });
}
