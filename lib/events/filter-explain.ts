/**
 * Why a message passed detection filter (msg.match): one entry for each rule
 * that held, in rule order, and one line saying so from the catalog
 * (`filter.why.*` in locales/<lang>/shared.json), in the language of the
 * Translate it is given. The first plate match's fields stay at the top, as
 * they were before the entries existed, for flows that read msg.match.score.
 *
 * Built only for messages that pass: a refused message costs nothing here.
 */
import { message, renderMessage, translateEnglish, type Message, type Translate } from '../core/messages';
import type { PlateListMatch } from '../plates';
import { localTimeIn } from './detection-view';

/** Why a message passed on a plate rule: the match of lib/plates, with the rule's position (from 1). */
export interface PlateMatch extends PlateListMatch {
  rule: number;
}

/** What every entry has: the rule's position (from 1), its type, and `urgent` when the rule is marked so. */
interface EntryBase {
  rule: number;
  urgent?: true;
}

/** One rule that held, and what it held on (msg.match.rules[i]). */
export type RuleEntry = EntryBase &
  (
    | { type: 'tag'; /** as the event sent it */ tag: string; /** the list entry it matched, as written */ as: string }
    | { type: 'camera'; camera: string }
    | { type: 'camera-match'; camera: string; pattern: string }
    | { type: 'site'; site: string }
    | { type: 'plate'; /** as read */ plate: string; entry: string; kind: PlateListMatch['kind']; score: number }
    | { type: 'name'; name: string; contains: string }
    | { type: 'confidence'; confidence: number; atLeast: number }
    | { type: 'enrolled'; externalId: string }
    | { type: 'context'; key: string; value: unknown }
    | { type: 'kind'; kind: 'face' | 'lpr' }
    | {
        type: 'time';
        /** `YYYY-MM-DD HH:mm:ss`, the local time judged. */
        localTime: string;
        /** The zone it was judged in. */
        timeZone: string;
        /** The windows, as a label shows them (`Mon–Fri 22:00–06:00`). */
        windows: string;
        /** Whether the time was inside the windows (false: an "outside" rule held). */
        inside: boolean;
      }
  );

/** msg.match: the first plate match's fields (when a plate rule held), the entries, the line, and `urgent`. */
export type MatchExplanation = Partial<PlateMatch> & {
  rules: readonly RuleEntry[];
  text: string;
  urgent?: true;
};

/** The entry of a time rule that held: the local time of `millis` in `zone`. */
export function timeEntry(rule: number, millis: number, zone: string, windows: string, inside: boolean): RuleEntry {
  return { rule, type: 'time', localTime: localTimeIn(millis, zone) ?? '', timeZone: zone, windows, inside };
}

/** Compared as list items are (./filter-lists.ts folded, which imports this file's types). */
const folded = (text: string) => text.trim().toLowerCase();

/** One entry in words: `tag Banned (sent as partner-Banned)`, `23:14 within 22:00–06:00 (America/New_York)`. */
export function entryText(entry: RuleEntry): Message {
  switch (entry.type) {
    case 'tag':
      return folded(entry.tag) === folded(entry.as)
        ? message('filter.why.tag', { tag: entry.tag })
        : message('filter.why.tag-sent-as', { tag: entry.as, sent: entry.tag });
    case 'camera':
      return message('filter.why.camera', { camera: entry.camera });
    case 'camera-match':
      return message('filter.why.camera-match', { camera: entry.camera, pattern: entry.pattern });
    case 'site':
      return message('filter.why.site', { site: entry.site });
    case 'plate':
      return entry.kind === 'exact'
        ? message('filter.why.plate', { plate: entry.plate })
        : message('filter.why.plate-like', { plate: entry.plate, entry: entry.entry, score: entry.score });
    case 'name':
      return message('filter.why.name', { name: entry.name, text: entry.contains });
    case 'confidence':
      return message('filter.why.confidence', { confidence: entry.confidence, value: entry.atLeast });
    case 'enrolled':
      return message('filter.why.enrolled', { externalId: entry.externalId });
    case 'context':
      return message('filter.why.context', { key: entry.key, value: String(entry.value) });
    case 'kind':
      return message(`filter.why.kind-${entry.kind}`);
    case 'time':
      return message(entry.inside ? 'filter.why.time-inside' : 'filter.why.time-outside', {
        time: entry.localTime.slice(11, 16),
        windows: entry.windows,
        zone: entry.timeZone,
      });
  }
}

/** The entries in one line, in the language of `translate`: `tag Banned · camera Gate 2 LPR`. */
export function explanationText(entries: readonly RuleEntry[], translate: Translate = translateEnglish): string {
  return entries.map((entry) => renderMessage(entryText(entry), translate)).join(' · ');
}

/** msg.match of a message that passed: the plate match's fields first, then the entries, the line and `urgent`. */
export function matchExplanation(
  outcome: { match: PlateMatch | undefined; rules: readonly RuleEntry[]; urgent: boolean },
  translate: Translate = translateEnglish,
): MatchExplanation {
  const explained: MatchExplanation = { ...outcome.match, rules: outcome.rules, text: explanationText(outcome.rules, translate) };
  if (outcome.urgent) explained.urgent = true;
  return explained;
}
