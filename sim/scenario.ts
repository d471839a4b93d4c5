/**
 * Scenarios: which plates and faces the simulator shows, with which tags,
 * at which cameras, sites, time zones and times of day. A scenario comes
 * from a small JSON file, from the command line's flags (--plates, --faces,
 * --cameras, --time-zone, --time-of-day, …) or from the API, and is checked
 * here with zod: a mistake is reported with where it is and what to write
 * instead (`plates[1].tags[0].expires: …`).
 *
 * A run draws each event's details from the scenario with a seeded
 * pseudo-random generator (mulberry32): the same seed gives the same plates,
 * faces, cameras and local times, event after event. A detection time is
 * chosen in the event's time zone: "night" is a local time from 22:00 to
 * 05:59, and `dateTimeUtc` is the latest instant, not after now, at which
 * the zone's clocks showed it (so at most a day ago).
 *
 * Without any scenario the events are the built-in samples (lib/bridge/sample.ts),
 * as before: plate XYZ987 and John Michael Doe, both tagged VIP, detected now.
 * Node-RED-free.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { EventKind, Tag, WebHookFaceRecPayload, WebHookLprPayload, DetectionEvent } from '../lib/events';

/** What the scenario's error messages and the command line call a time of day. */
export const TIME_OF_DAY_NAMES = ['now', 'morning', 'day', 'afternoon', 'evening', 'night'] as const;
export type TimeOfDayName = (typeof TIME_OF_DAY_NAMES)[number];

/** Local time windows, in minutes after midnight [from, to); night wraps past midnight. */
const WINDOWS: Record<Exclude<TimeOfDayName, 'now'>, [number, number]> = {
  morning: [6 * 60, 12 * 60],
  day: [8 * 60, 18 * 60],
  afternoon: [12 * 60, 18 * 60],
  evening: [18 * 60, 22 * 60],
  night: [22 * 60, 30 * 60],
};

/** Whether a local hour (0–23) lies in a named window: for tests and summaries. */
export function hourIsIn(name: Exclude<TimeOfDayName, 'now'>, hour: number): boolean {
  const [from, to] = WINDOWS[name];
  const minute = hour * 60;
  return (minute >= from && minute < to) || (minute + 24 * 60 >= from && minute + 24 * 60 < to);
}

const HHMM = /^([01]?\d|2[0-3]):([0-5]\d)$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/** A date whose day exists (Date.parse takes 2030-02-30 as 2 March). */
function realDay(text: string): boolean {
  const [y, m, d] = text.slice(0, 10).split('-').map(Number);
  const day = new Date(Date.UTC(y, m - 1, d));
  return Number.isFinite(Date.parse(text)) && day.getUTCFullYear() === y && day.getUTCMonth() === m - 1 && day.getUTCDate() === d;
}

function validTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const nonEmpty = (what: string) =>
  z
    .string({ error: `expected ${what} as text` })
    .trim()
    .min(1, { error: `${what} is empty` });

const expiresRule = z
  .string({ error: 'expected a date such as 2030-12-31 or 2030-12-31T23:59:59Z, or null' })
  .trim()
  .refine((text) => ISO_DATE.test(text) && realDay(text), {
    error: (i) => `"${String(i.input)}" is not a date: write it as 2030-12-31 or 2030-12-31T23:59:59Z`,
  })
  .transform((text) => new Date(/T/.test(text) ? text : `${text}T23:59:59Z`).toISOString().replace('.000Z', 'Z'));

/** Text to the object it stands for; anything else as it is (the object rule then says what is wrong). */
const fromText = (parse: (text: string) => unknown) => (value: unknown) => (typeof value === 'string' ? parse(value) : value);

/** A tag: `"VIP"`, `"VIP@2030-12-31"` (expires that day), or `{ "name": "VIP", "expires": "2030-12-31" }`. */
const tagRule = z.preprocess(
  fromText((text) => {
    const at = text.indexOf('@');
    return at < 0 ? { name: text } : { name: text.slice(0, at), expires: text.slice(at + 1) };
  }),
  z
    .strictObject(
      { name: nonEmpty('the tag name'), expires: expiresRule.nullable().optional() },
      { error: 'expected a tag: "VIP", "VIP@2030-12-31" or { "name": "VIP", "expires": "2030-12-31" }' },
    )
    .transform((t) => ({ name: t.name, expires: t.expires ?? null })),
);

const vehicleRule = z.strictObject(
  {
    make: z.string().optional(),
    model: z.string().optional(),
    color: z.string().optional(),
    state: z.string().optional(),
  },
  { error: 'expected { "make": "Ford", "model": "F-150", "color": "Black", "state": "NY" } (any of them)' },
);

/** "ABC123:Banned:Staff@2030-12-31": the plate (or name), then its tags, each after a colon. */
function splitEntry(text: string): { head: string; tags: string[] } {
  const [head, ...tags] = text.split(':').map((s) => s.trim());
  return { head, tags: tags.filter((t) => t !== '') };
}

const tagsRule = z.array(tagRule, { error: 'expected a list of tags, such as ["VIP", "Banned@2030-12-31"]' });
const externalIdRule = z.string({ error: 'expected text or null' }).nullable();
const imagesRule = z.boolean({ error: 'expected false (no pictures on its events) or true' });

const plateRule = z.preprocess(
  fromText((text) => {
    const { head, tags } = splitEntry(text);
    return { plate: head, tags };
  }),
  z.strictObject(
    {
      plate: z
        .string({ error: 'expected the plate as text' })
        .trim()
        .regex(/^[A-Za-z0-9][A-Za-z0-9 -]{0,15}$/, {
          error: (i) => `"${String(i.input)}" is not a plate: letters, digits, spaces and dashes, at most 16`,
        }),
      tags: tagsRule.optional(),
      vehicle: vehicleRule.optional(),
      externalId: externalIdRule.optional(),
      images: imagesRule.optional(),
    },
    { error: 'expected a plate: "ABC123", "ABC123:Banned" or { "plate": "ABC123", "tags": ["Banned"] }' },
  ),
);

const faceRule = z.preprocess(
  fromText((text) => {
    const { head, tags } = splitEntry(text);
    return { name: head, tags };
  }),
  z.strictObject(
    {
      name: z.string({ error: 'expected the name as text, such as "Jane Roe"' }).optional(),
      firstName: z.string({ error: 'expected text' }).optional(),
      middleName: z.string({ error: 'expected text' }).optional(),
      lastName: z.string({ error: 'expected text' }).optional(),
      tags: tagsRule.optional(),
      externalId: externalIdRule.optional(),
      images: imagesRule.optional(),
    },
    { error: 'expected a person: "Jane Roe", "Jane Roe:VIP" or { "name": "Jane Roe", "tags": ["VIP"] }' },
  ),
);

const timeZoneRule = nonEmpty('the time zone').refine(validTimeZone, {
  error: (i) => `"${String(i.input)}" is not a time zone: use an IANA name such as America/New_York, Europe/Berlin or UTC`,
});

const timeOfDayRule = nonEmpty('the time of day').refine((t) => (TIME_OF_DAY_NAMES as readonly string[]).includes(t) || HHMM.test(t), {
  error: (i) => `"${String(i.input)}" is not a time of day: use ${TIME_OF_DAY_NAMES.join(', ')} or a local time such as 23:30`,
});

const cameraRule = z.preprocess(
  fromText((name) => ({ name })),
  z.strictObject(
    {
      name: nonEmpty("the camera's name"),
      kind: z.enum(['face', 'plate', 'both'], { error: 'expected "face", "plate" or "both"' }).optional(),
      site: z.string({ error: "expected the site's name as text" }).optional(),
      timeZone: timeZoneRule.optional(),
    },
    { error: 'expected a camera: "Gate 2 LPR" or { "name": "Gate 2 LPR", "kind": "plate", "timeZone": "America/New_York" }' },
  ),
);

const siteRule = z.preprocess(
  fromText((name) => ({ name })),
  z.strictObject(
    {
      name: nonEmpty("the site's name"),
      serverContext: z
        .record(z.string(), z.string({ error: 'expected text (serverContext values are strings)' }), {
          error: 'expected an object of text values, such as { "SiteId": "1" }',
        })
        .nullable()
        .optional(),
    },
    { error: 'expected a site: "Site 1" or { "name": "Site 1", "serverContext": { "SiteId": "1" } }' },
  ),
);

const oneOrMore = <T extends z.ZodType>(rule: T) => z.union([z.array(rule), rule.transform((v) => [v])]);

/** The scenario as written (file, flags or API). Every list may be left out. */
export const SCENARIO_SCHEMA = z.strictObject(
  {
    description: z.string().optional(),
    seed: z.number({ error: 'expected a whole number' }).int({ error: 'expected a whole number' }).optional(),
    plates: z.array(plateRule, { error: 'expected a list of plates' }).optional(),
    faces: z.array(faceRule, { error: 'expected a list of people' }).optional(),
    cameras: z.array(cameraRule, { error: 'expected a list of cameras' }).optional(),
    sites: z.array(siteRule, { error: 'expected a list of sites' }).optional(),
    timeZones: oneOrMore(timeZoneRule).optional(),
    timesOfDay: oneOrMore(timeOfDayRule).optional(),
    tagPrefix: z.string().optional(),
  },
  { error: 'expected a JSON object with any of: plates, faces, cameras, sites, timeZones, timesOfDay, tagPrefix, seed' },
);
export type ScenarioInput = z.input<typeof SCENARIO_SCHEMA>;

interface ScenarioTag {
  name: string;
  expires: string | null;
}
interface ScenarioPlate {
  plate: string;
  tags: ScenarioTag[];
  vehicle?: z.infer<typeof vehicleRule>;
  externalId: string | null;
  /** false: its events carry no pictures, whatever the run's image mode. */
  images?: false;
}
interface ScenarioFace {
  firstName: string | null;
  middleName: string | null;
  lastName: string | null;
  faceId: string;
  tags: ScenarioTag[];
  externalId: string | null;
  /** false: its events carry no pictures, whatever the run's image mode. */
  images?: false;
}
interface ScenarioCamera {
  name: string;
  kind: 'face' | 'plate' | 'both';
  site?: string;
  timeZone?: string;
}
interface ScenarioSite {
  name: string;
  serverContext: Record<string, string> | null;
}

/** A checked scenario, ready to draw from. */
export interface Scenario {
  seed?: number;
  plates: ScenarioPlate[];
  faces: ScenarioFace[];
  cameras: ScenarioCamera[];
  sites: ScenarioSite[];
  timeZones: string[];
  timesOfDay: string[];
  tagPrefix: string;
}

/** A scenario that cannot be used; `problems` say where and what to fix. */
export class ScenarioError extends Error {
  readonly code = 'ERR_SIM_SCENARIO';
  constructor(
    readonly problems: string[],
    readonly source = 'the scenario',
  ) {
    super(`${source}: ${problems.join('; ')}`);
    this.name = 'ScenarioError';
  }
}

function where(path: ReadonlyArray<PropertyKey>): string {
  return path.reduce<string>((out, key) => (typeof key === 'number' ? `${out}[${key}]` : out ? `${out}.${String(key)}` : String(key)), '');
}

function issuesOf(error: z.ZodError): string[] {
  return error.issues.map((i) => {
    const at = where(i.path);
    // a union lists each branch's complaint: the union's own message says what is expected
    const message =
      i.code === 'unrecognized_keys' ? `unknown ${i.keys.length > 1 ? 'keys' : 'key'} ${i.keys.map((k) => `"${k}"`).join(', ')}` : i.message;
    return at ? `${at}: ${message}` : message;
  });
}

/** Stable face id for a name, so a dedupe on the person works across events. */
function faceIdOf(name: string): string {
  return `sim-${createHash('sha256').update(name).digest('hex').slice(0, 12)}`;
}

/** Checks a scenario as written; throws ScenarioError naming every problem. */
export function parseScenario(input: unknown, source?: string): Scenario {
  const parsed = SCENARIO_SCHEMA.safeParse(input);
  if (!parsed.success) throw new ScenarioError(issuesOf(parsed.error), source);
  const s = parsed.data;
  const problems: string[] = [];
  const plates = (s.plates ?? []).map((p): ScenarioPlate => ({
    plate: p.plate.toUpperCase(),
    tags: p.tags ?? [],
    vehicle: p.vehicle,
    externalId: p.externalId ?? null,
    ...(p.images === false ? { images: false as const } : {}),
  }));
  const faces = (s.faces ?? []).map((f, i): ScenarioFace => {
    let first = f.firstName?.trim();
    let middle = f.middleName?.trim();
    let last = f.lastName?.trim();
    if (f.name !== undefined) {
      if (first || middle || last) problems.push(`faces[${i}]: give "name" or firstName/middleName/lastName, not both`);
      const words = f.name.trim().split(/\s+/).filter(Boolean);
      first = words[0];
      last = words.length > 1 ? words[words.length - 1] : undefined;
      middle = words.length > 2 ? words.slice(1, -1).join(' ') : undefined;
    }
    const full = [first, middle, last].filter(Boolean).join(' ');
    if (!full) problems.push(`faces[${i}]: the person has no name: write "Jane Roe" or { "firstName": "Jane", "lastName": "Roe" }`);
    return {
      firstName: first || null,
      middleName: middle || null,
      lastName: last || null,
      faceId: faceIdOf(full),
      tags: f.tags ?? [],
      externalId: f.externalId ?? null,
      ...(f.images === false ? { images: false as const } : {}),
    };
  });
  const cameras = (s.cameras ?? []).map((c): ScenarioCamera => ({ name: c.name, kind: c.kind ?? 'both', site: c.site, timeZone: c.timeZone }));
  const sites = (s.sites ?? []).map((site): ScenarioSite => ({ name: site.name, serverContext: site.serverContext ?? null }));
  if (problems.length) throw new ScenarioError(problems, source);
  return {
    seed: s.seed,
    plates,
    faces,
    cameras,
    sites,
    timeZones: s.timeZones ?? [],
    timesOfDay: s.timesOfDay ?? [],
    tagPrefix: s.tagPrefix?.trim() ?? '',
  };
}

/** True when a scenario changes nothing of the built-in samples. */
export function isEmptyScenario(s: Scenario): boolean {
  return !s.plates.length && !s.faces.length && !s.cameras.length && !s.sites.length && !s.timeZones.length && !s.timesOfDay.length && !s.tagPrefix;
}

/** The plate share a scenario implies: only plates → 1, only faces → 0, else undefined (the run's mix). */
export function impliedMix(s: Scenario): number | undefined {
  if (s.plates.length && !s.faces.length) return 1;
  if (s.faces.length && !s.plates.length) return 0;
  return undefined;
}

/**
 * The built-in scenario `mixed`: plates and faces, VIP and Banned (and some
 * untagged, one tag expired), by day and by night, at several cameras of
 * three sites in three time zones. The alert example's cameras
 * (`Gate 2 LPR`, `Entrance Cam 3`) are among them.
 */
export const MIXED_SCENARIO: ScenarioInput = {
  description: 'plates and faces, VIP and Banned, day and night, several cameras, sites and time zones',
  seed: 25,
  plates: [
    'ABC123:Banned',
    'XYZ987:VIP@2030-12-31',
    'KLM456',
    { plate: 'JKR777', tags: ['Banned', 'Watch list'], vehicle: { make: 'Ford', model: 'F-150', color: 'Black', state: 'NY' } },
    { plate: 'TSL300', tags: ['Staff Parking'], vehicle: { make: 'Tesla', model: 'Model 3', color: 'White', state: 'CA' } },
    'OLD001:VIP@2020-01-01',
  ],
  faces: [
    'Jane Roe:VIP',
    'Ricardo Alvarez:Banned',
    'Mei Lin Chen',
    'Oskar Johannes Lindqvist:Advantage Player',
    'Amara Okafor',
    'John Michael Doe:VIP@2030-12-31',
  ],
  cameras: [
    { name: 'Gate 2 LPR', kind: 'plate', site: 'eConnect Site 1', timeZone: 'America/New_York' },
    { name: 'Garage Exit LPR', kind: 'plate', site: 'eConnect Site 1', timeZone: 'America/New_York' },
    { name: 'Valet LPR', kind: 'plate', site: 'Harbor Casino', timeZone: 'America/Los_Angeles' },
    { name: 'Entrance Cam 3', kind: 'face', site: 'eConnect Site 1', timeZone: 'America/New_York' },
    { name: 'Cage Cam 1', kind: 'face', site: 'Harbor Casino', timeZone: 'America/Los_Angeles' },
    { name: 'Lobby Cam', kind: 'face', site: 'Alpenhof Resort', timeZone: 'Europe/Berlin' },
  ],
  sites: [
    { name: 'eConnect Site 1', serverContext: { SiteId: '1', PropertyName: 'eConnect Site 1', Region: 'East' } },
    { name: 'Harbor Casino', serverContext: { SiteId: '7', PropertyName: 'Harbor Casino', Region: 'West' } },
    { name: 'Alpenhof Resort', serverContext: { SiteId: '12', PropertyName: 'Alpenhof Resort', Region: 'Europe' } },
  ],
  timesOfDay: ['day', 'night', 'evening', 'now'],
};

/** Built-in scenarios by name (--scenario NAME). `sample` is the built-in samples, as without a scenario. */
export const BUILT_IN_SCENARIOS: Readonly<Record<string, ScenarioInput>> = { sample: {}, mixed: MIXED_SCENARIO };

/** mulberry32: small, fast, good enough to pick from lists; the same seed, the same numbers. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The wall-clock parts of an instant in a zone. */
function zonedParts(at: number, zone: string): { y: number; mo: number; d: number; h: number; mi: number; s: number } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    })
      .formatToParts(new Date(at))
      .filter((p) => p.type !== 'literal')
      .map((p) => [p.type, Number(p.value)]),
  );
  return { y: parts.year, mo: parts.month, d: parts.day, h: parts.hour, mi: parts.minute, s: parts.second };
}

/** The zone's offset from UTC at an instant, in ms. */
function offsetAt(at: number, zone: string): number {
  const p = zonedParts(at, zone);
  return Date.UTC(p.y, p.mo - 1, p.d, p.h, p.mi, p.s) - Math.floor(at / 1000) * 1000;
}

/** The local hour and minute of an instant in a zone. */
export function localTime(at: Date | string, zone: string): { hour: number; minute: number } {
  const p = zonedParts(new Date(at).getTime(), zone);
  return { hour: p.h, minute: p.mi };
}

/**
 * The latest instant not after `now` at which the zone's clocks showed
 * `minuteOfDay` (minutes after midnight, local); seconds taken from `second`.
 */
export function latestLocalTime(now: Date, zone: string, minuteOfDay: number, second = 0): Date {
  const today = zonedParts(now.getTime(), zone);
  for (let back = 0; back <= 2; back++) {
    const wall = Date.UTC(today.y, today.mo - 1, today.d - back, Math.floor(minuteOfDay / 60), minuteOfDay % 60, second);
    // two passes: the offset at the guess, then at the corrected instant (right across a DST change)
    let at = wall - offsetAt(wall, zone);
    at = wall - offsetAt(at, zone);
    if (at <= now.getTime()) return new Date(at);
  }
  return now;
}

/** What a run draws for one event. */
export interface EventScene {
  plate?: ScenarioPlate;
  face?: ScenarioFace;
  camera?: string;
  site?: ScenarioSite;
  timeZone?: string;
  /** The detection time (undefined: now). */
  at?: Date;
}

/** Draws the details of each event from a scenario, in order, reproducibly for a seed. */
export class ScenarioDraw {
  private readonly random: () => number;
  readonly seed: number;

  constructor(
    readonly scenario: Scenario,
    seed?: number,
  ) {
    this.seed = seed ?? scenario.seed ?? Math.floor(Math.random() * 2 ** 31);
    this.random = seededRandom(this.seed);
  }

  private pick<T>(list: readonly T[]): T | undefined {
    // a draw is made even when the list is empty or has one item, so one list's length does not shift the others
    const r = this.random();
    return list.length ? list[Math.floor(r * list.length)] : undefined;
  }

  /** The next event's details; `now` is the run's clock. */
  next(kind: EventKind, now: Date = new Date()): EventScene {
    const s = this.scenario;
    const scene: EventScene = {};
    if (kind === 'lpr') scene.plate = this.pick(s.plates);
    else scene.face = this.pick(s.faces);
    const cameraKind = kind === 'lpr' ? 'plate' : 'face';
    const camera = this.pick(s.cameras.filter((c) => c.kind === 'both' || c.kind === cameraKind));
    scene.camera = camera?.name;
    const site = this.pick(s.sites);
    scene.site = camera?.site !== undefined ? (s.sites.find((x) => x.name === camera.site) ?? { name: camera.site, serverContext: null }) : site;
    const zone = this.pick(s.timeZones);
    scene.timeZone = camera?.timeZone ?? zone;
    const timeOfDay = this.pick(s.timesOfDay) ?? 'now';
    const minuteDraw = this.random();
    const secondDraw = Math.floor(this.random() * 60);
    if (timeOfDay !== 'now') {
      let minuteOfDay: number;
      const hhmm = HHMM.exec(timeOfDay);
      if (hhmm) minuteOfDay = Number(hhmm[1]) * 60 + Number(hhmm[2]);
      else {
        const [from, to] = WINDOWS[timeOfDay as Exclude<TimeOfDayName, 'now'>];
        minuteOfDay = (from + Math.floor(minuteDraw * (to - from))) % (24 * 60);
      }
      scene.at = latestLocalTime(now, scene.timeZone ?? DEFAULT_ZONE[kind], minuteOfDay, secondDraw);
    }
    return scene;
  }
}

/** The samples' own zones, used for a time of day when the scenario names none. */
const DEFAULT_ZONE: Record<EventKind, string> = { lpr: 'America/New_York', face: 'America/Los_Angeles' };

const tagsOf = (tags: ScenarioTag[], prefix: string): Tag[] =>
  tags.map((t) => ({ tagName: prefix ? `${prefix}-${t.name}` : t.name, expires: t.expires }));

/**
 * Makes a sample event (built for the scene's time) show the scene: the
 * plate or person with its tags, the camera, site and time zone. What the
 * scenario leaves out stays as in the sample.
 */
export function applyScene(event: DetectionEvent, scene: EventScene, scenario: Scenario): DetectionEvent {
  const info = event.payload.detectionInfo;
  if (scene.camera) info.detectorName = scene.camera;
  if (scene.timeZone) info.timeZone = scene.timeZone;
  if (scene.site) {
    event.sourceName = scene.site.name;
    event.serverContext = scene.site.serverContext ? { ...scene.site.serverContext } : null;
  }
  if (event.publishType === 'WebHookLprPayload') {
    const plate = scene.plate;
    if (plate) {
      const lpr = (event as WebHookLprPayload).payload.lprPlateInfo;
      lpr.plate = plate.plate;
      lpr.similar1Plate = plate.plate;
      lpr.tags = tagsOf(plate.tags, scenario.tagPrefix);
      if (plate.vehicle) {
        lpr.vehicleMake = plate.vehicle.make ?? lpr.vehicleMake;
        lpr.vehicleModel = plate.vehicle.model ?? lpr.vehicleModel;
        lpr.vehicleColor = plate.vehicle.color ?? lpr.vehicleColor;
        lpr.vehicleState = plate.vehicle.state ?? lpr.vehicleState;
      }
      event.externalId = plate.externalId;
      event.fields = null;
    }
  } else {
    const face = scene.face;
    if (face) {
      const person = (event as WebHookFaceRecPayload).payload.personInfo;
      person.faceId = face.faceId;
      person.firstName = face.firstName;
      person.middleName = face.middleName;
      person.lastName = face.lastName;
      person.tags = tagsOf(face.tags, scenario.tagPrefix);
      person.notes = [];
      event.externalId = face.externalId;
      event.fields = null;
    }
  }
  if (!scene.plate && !scene.face && scenario.tagPrefix) {
    const tagged =
      event.publishType === 'WebHookLprPayload'
        ? (event as WebHookLprPayload).payload.lprPlateInfo
        : (event as WebHookFaceRecPayload).payload.personInfo;
    tagged.tags = (tagged.tags ?? []).map((t) => ({ ...t, tagName: `${scenario.tagPrefix}-${t.tagName}` }));
  }
  return event;
}
