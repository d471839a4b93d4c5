/**
 * detection-alarm's configuration as the node runs it: the options with
 * their defaults (lib/config/node-options.ts), where the event is read, what
 * joins reads into one alarm, the times, and where the mail link points. A
 * configuration that cannot run is a problem (translated text) instead.
 */
import type { NodeAPI, NodeDef } from 'node-red';
import type { AlarmKeyBy, BookOptions } from '../../lib/alarm';
import { durationMs, nodeOptions, type SavedOptions } from '../../lib/config';
import { baseUrlProblem, normalizeNodePath, routePathProblem } from '../../lib/http';
import { DEFAULT_LOOKALIKE_CLASSES, normalisePlate, parseLookalikeClasses, type Lookalikes } from '../../lib/plates';
import { translate, type Vars } from '../shared/i18n';
import { propertyReader, typedLabel, type PropertyReader, type PropertyUtil } from '../shared/typed-property';

export interface AlarmDef extends NodeDef, SavedOptions<'detection-alarm'> {
  property?: string;
  propertyType?: string;
  lookalikeClasses?: string;
  /** The address people reach this Node-RED at (`https://nodered.example.com:1880`): mail links start with it; empty: no links. */
  linkBase?: string;
  /** The page's path; empty: `/detection-alarm/<node id>`. */
  linkPath?: string;
  /** A detection-listener: the page is served on its port instead of Node-RED's. */
  listener?: string;
  redis?: string;
  sharedName?: string;
}

export interface AlarmSettings {
  readEvent: PropertyReader;
  eventName: string;
  keyBy: AlarmKeyBy;
  lookalikes?: Lookalikes;
  /** A plate as the node's keys hold it (normalised, folded). */
  plateKey: (plate: string) => string;
  book: BookOptions;
  snoozeMs: number;
  snoozeScope: 'key' | 'camera';
  linkMs: number;
  /** The page's path (always starting with /). */
  linkPath: string;
  /** The link's start, without a trailing slash; '' when links are off. */
  linkBase: string;
  listener?: string;
  shared?: { redis: string | undefined; name: string };
}

const DAY_MS = 86_400_000;

export function alarmSettings(
  RED: NodeAPI,
  node: { id: string },
  config: AlarmDef,
  t: (key: string, vars?: Vars) => string,
): { ok: true; settings: AlarmSettings } | { ok: false; problem: string } {
  const options = nodeOptions('detection-alarm', config);
  const property = config.property || 'payload';
  const propertyType = config.propertyType || 'msg';
  let readEvent: PropertyReader;
  try {
    readEvent = propertyReader(RED.util as unknown as PropertyUtil, node, property, propertyType);
  } catch (err) {
    return { ok: false, problem: t('errors.property', { message: (err as Error).message }) };
  }
  let lookalikes: Lookalikes | undefined;
  if (options.lookalike && options.keyBy !== 'camera' && options.keyBy !== 'externalId') {
    const classes = typeof config.lookalikeClasses === 'string' ? config.lookalikeClasses : DEFAULT_LOOKALIKE_CLASSES;
    const parsed = parseLookalikeClasses(classes);
    if (!parsed.ok) return { ok: false, problem: t('errors.lookalike', { message: translate(RED, parsed.problem) }) };
    lookalikes = parsed.lookalikes;
  }
  const fold = lookalikes;
  // the rules the dialog runs too (lib/http: base-url.ts, route-path.ts)
  const base = (config.linkBase ?? '').trim().replace(/\/+$/, '');
  if (base !== '' && baseUrlProblem(base) !== undefined) return { ok: false, problem: t('errors.link-base', { base }) };
  const typed = (config.linkPath ?? '').trim();
  if (typed !== '' && routePathProblem(typed) !== undefined) return { ok: false, problem: t('errors.link-path', { path: typed }) };
  const path = typed === '' ? `/detection-alarm/${node.id}` : normalizeNodePath(typed);
  return {
    ok: true,
    settings: {
      readEvent,
      eventName: typedLabel(propertyType, property),
      keyBy: options.keyBy,
      lookalikes,
      plateKey: (plate) => (fold ? fold.fold(normalisePlate(plate)) : normalisePlate(plate)),
      book: {
        remindMs: durationMs(options.remind, options.remindUnits),
        maxReminders: options.maxReminders,
        escalateMs: durationMs(options.escalate, options.escalateUnits),
        quietMs: durationMs(options.quiet, options.quietUnits),
        maxOpen: options.maxOpen,
        urgentPierces: options.urgentPierces,
        historyMax: options.historyMax,
        historyMaxAgeMs: options.historyDays * DAY_MS,
      },
      snoozeMs: durationMs(options.snoozeFor, options.snoozeUnits),
      snoozeScope: options.snoozeScope,
      linkMs: options.linkHours * 3_600_000,
      linkPath: path.replace(/\/+$/, '') || '/',
      linkBase: base,
      listener: config.listener || undefined,
      shared: options.scope === 'redis' ? { redis: config.redis, name: (config.sharedName ?? '').trim() || node.id } : undefined,
    },
  };
}
