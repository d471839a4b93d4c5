/**
 * What a watch-list entry accepts, shown before deploying: reads made from
 * the entry the way plate readers get it wrong (a look-alike at each
 * position, an extra or a missing character, a second guess in
 * similar1Plate) and a few it must not accept (too many look-alikes, an
 * unrelated character, extra characters when none are allowed). Each read is
 * put through the very matcher a deployed node uses (PlateList): the preview
 * never guesses what the node would do.
 */
import { normalisePlate, type Lookalikes } from './lookalike';
import { compilePlateList, type PlateListMatch, type PlateListOptions } from './plate-list';

/** How an example read was made from the entry. */
export interface PreviewChange {
  /** Characters replaced by a look-alike. */
  lookalikes: number;
  /** Characters added. */
  extra: number;
  /** Characters left out. */
  missing: number;
  /** Characters replaced by one of no class of the entry's character (1 read as 7). */
  unrelated: number;
  /** The entry is only in similar1Plate; the plate read is unrelated. */
  similar1Plate: boolean;
}

export interface PreviewExample {
  /** The plate read. */
  plate: string;
  /** The reader's second guess, when the example has one. */
  similar1Plate?: string;
  change: PreviewChange;
  /** How it matched (accepted examples only). */
  match?: PlateListMatch;
}

export interface PlatePreview {
  /** The entry without spaces and dashes, in upper case ('' when nothing is left). */
  entry: string;
  accepted: PreviewExample[];
  refused: PreviewExample[];
}

/** Characters tried, in order, to stand for an unrelated misread: the first of no class of the character replaced. */
const UNRELATED = ['7', 'X', '4', 'K', 'H', 'A', '3', 'M'];

function unrelatedTo(char: string, classes: Lookalikes): string {
  return UNRELATED.find((c) => !classes.alike(c, char)) ?? 'M';
}

/** Another character of `char`'s class, or undefined. */
function partnerOf(char: string, classes: Lookalikes): string | undefined {
  const group = classes.classes.find((g) => g.includes(char));
  return group ? [...group].find((c) => c !== char) : undefined;
}

const change = (partial: Partial<PreviewChange>): PreviewChange => ({
  lookalikes: 0,
  extra: 0,
  missing: 0,
  unrelated: 0,
  similar1Plate: false,
  ...partial,
});

/** The entry with the characters at `positions` (0-based) replaced by their look-alike partners. */
function withLookalikes(plate: string, positions: number[], partners: Map<number, string>): string {
  const chars = [...plate];
  for (const p of positions) chars[p] = partners.get(p) as string;
  return chars.join('');
}

/**
 * Example reads of `entry` with the options of a node, each tried on a list
 * holding only that entry: those it accepts (with their match) and those it
 * refuses.
 */
export function previewPlateEntry(entry: string, options: PlateListOptions): PlatePreview {
  const plate = normalisePlate(entry);
  const out: PlatePreview = { entry: plate, accepted: [], refused: [] };
  if (plate === '') return out;
  const list = compilePlateList([entry], options);
  const classes = list.classes;
  const chars = [...plate];
  const n = chars.length;
  const partners = new Map<number, string>();
  chars.forEach((c, i) => {
    const partner = partnerOf(c, classes);
    if (partner !== undefined) partners.set(i, partner);
  });
  const classed = [...partners.keys()];
  const examples: Array<{ plate: string; similar1Plate?: string; change: PreviewChange }> = [];
  const add = (read: string, how: Partial<PreviewChange>, similar1Plate?: string) => {
    if (examples.some((x) => x.plate === read && x.similar1Plate === similar1Plate)) return;
    examples.push({ plate: read, ...(similar1Plate === undefined ? {} : { similar1Plate }), change: change(how) });
  };

  add(plate, {});
  // one look-alike at each position that has one (none allowed: one example is enough)
  for (const p of list.lookalikes > 0 ? classed : classed.slice(0, 1)) add(withLookalikes(plate, [p], partners), { lookalikes: 1 });
  // more look-alikes than one: as many as allowed, and one more
  for (let count = 2; count <= Math.min(classed.length, list.lookalikes + 1); count++)
    add(withLookalikes(plate, classed.slice(0, count), partners), { lookalikes: count });
  // a character read twice, a character not read (the middle one); as many as allowed, and one more
  const middle = Math.floor(n / 2);
  for (let count = 1; count <= list.extraMissing + 1; count++) {
    const doubled = chars.slice(0, middle).join('') + chars[middle].repeat(count + 1) + chars.slice(middle + 1).join('');
    add(doubled, { extra: count });
    if (n - count >= 1) add(chars.slice(0, middle).join('') + chars.slice(middle + count).join(''), { missing: count });
  }
  // a look-alike and an extra character together
  if (classed.length > 0 && list.lookalikes > 0 && list.extraMissing > 0) {
    const first = withLookalikes(plate, [classed[0]], partners);
    add(first + chars[n - 1], { lookalikes: 1, extra: 1 });
  }
  // an unrelated character in place of the last one (1 read as 7): never a match
  const last = n - 1;
  add(chars.slice(0, last).join('') + unrelatedTo(chars[last], classes), { unrelated: 1 });
  // the entry only in the reader's second guess
  add(chars.map((c) => unrelatedTo(c, classes)).join(''), { similar1Plate: true }, plate);

  for (const example of examples) {
    const match = list.match(example.plate, example.similar1Plate);
    if (match) out.accepted.push({ ...example, match });
    else out.refused.push(example);
  }
  return out;
}
