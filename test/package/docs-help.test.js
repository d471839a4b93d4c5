'use strict';
/**
 * One source per text: a node's options (and what it takes and sends) are
 * described once, in its en-US help; docs/nodes/<type>.md carries a part
 * generated from it (scripts/docs.js, `npm run docs`) and the long reference
 * around it. These tests fail when the help and the page disagree, naming
 * the node and the option, and when a help grows past what a sidebar shows.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { ROOT } = require('../support');
const { nodeTypes, helpParts, render, generatedPart, docsRows } = require('../../scripts/docs');

const LOCALES = path.join(ROOT, 'locales');
const LANGS = fs.readdirSync(LOCALES);
/** Words a help may have: what fits a sidebar without scrolling through a manual. */
// detection filter: eleven kinds of rule, plate matching and time windows, each option one line.
// detection in and detection sample: every field of msg.detection, one line each (23 of them).
// detection alarm: four outputs, seven actions, twenty options, each one line.
const WORDS = { 'detection-in': 900, 'detection-filter': 480, 'detection-redis': 480, 'detection-sample': 490, 'detection-alarm': 510 };
const DEFAULT_WORDS = 400;

const help = (type, lang = 'en-US') => fs.readFileSync(path.join(LOCALES, lang, `${type}.html`), 'utf8');
const page = (type) => path.join(ROOT, 'docs', 'nodes', `${type}.md`);
const words = (html) =>
  html
    .replace(/<script[^>]*>|<\/script>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .split(/\s+/)
    .filter((w) => /[\p{L}\p{N}]/u.test(w)).length;

/** The help's rows in the shape docsRows reads them back: where (the output port), name, type, optional, text. */
function helpRows(parts, part) {
  if (part === 'Options') return parts.options.map((p) => ({ where: '', ...p }));
  if (part === 'Inputs') return parts.inputs ? parts.inputs.items.map((p) => ({ where: '', ...p })) : [];
  return (parts.outputs ?? []).flatMap((port) => port.items.map((p) => ({ where: port.port, ...p })));
}

/** Every disagreement between the help's rows and the page's, one sentence each. */
function disagreements(type, helpList, docsList, part) {
  const label = part === 'Options' ? 'option' : `${part === 'Inputs' ? 'input' : 'output'} property`;
  const key = (r) => `${r.where}\u0000${r.name}`;
  const named = (r) => `"${r.name}"${r.where ? ` (output ${r.where})` : ''}`;
  const docs = new Map(docsList.map((r) => [key(r), r]));
  const fromHelp = new Map(helpList.map((r) => [key(r), r]));
  const out = [];
  for (const [k, h] of fromHelp) {
    const d = docs.get(k);
    if (!d) out.push(`${type}: ${label} ${named(h)} is in the help but not in docs/nodes/${type}.md`);
    else {
      if (d.text !== h.text) out.push(`${type}: ${label} ${named(h)} says "${h.text}" in the help but "${d.text}" in docs/nodes/${type}.md`);
      if (d.type !== h.type) out.push(`${type}: ${label} ${named(h)} is of type "${h.type}" in the help but "${d.type}" in docs/nodes/${type}.md`);
      if (d.optional !== h.optional)
        out.push(`${type}: ${label} ${named(h)} is ${h.optional ? '' : 'not '}optional in the help, the other way in docs/nodes/${type}.md`);
    }
  }
  for (const [k, d] of docs) if (!fromHelp.has(k)) out.push(`${type}: ${label} ${named(d)} is in docs/nodes/${type}.md but not in the help`);
  return out;
}

describe('docs/nodes and the help say the same', function () {
  const types = nodeTypes();

  it('docs/nodes has one page per node type, and no page of a type that does not exist', function () {
    const pages = fs.readdirSync(path.join(ROOT, 'docs', 'nodes')).filter((f) => f.endsWith('.md') && f !== 'README.md');
    assert.deepEqual(pages.sort(), types.map((t) => `${t}.md`).sort());
  });

  for (const type of types) {
    describe(type, function () {
      it('its help lists its options, one line each, under Details › Options', function () {
        const parts = helpParts(help(type));
        assert.ok(parts.options.length > 0, `locales/en-US/${type}.html: an <h4>Options</h4> with a <dl> of the dialog's options`);
        for (const option of parts.options) {
          assert.ok(option.type, `${type}: option "${option.name}" has a type`);
          assert.ok(option.text.length > 0 && option.text.length <= 300, `${type}: option "${option.name}" is said in one line: ${option.text}`);
        }
      });

      it('its page says of every option (and message property) what the help says', function () {
        const markdown = fs.readFileSync(page(type), 'utf8');
        assert.ok(generatedPart(markdown), `docs/nodes/${type}.md has the part generated from the help`);
        const parts = helpParts(help(type));
        const problems = ['Options', 'Inputs', 'Outputs'].flatMap((part) =>
          disagreements(type, helpRows(parts, part), docsRows(markdown, part), part),
        );
        assert.deepEqual(problems, [], `${problems.join('\n')}\n(edit the help, then run npm run docs)`);
        // and the rest of the generated part (notes, port names) as `npm run docs` writes it
        assert.equal(generatedPart(markdown), render(type, parts), `docs/nodes/${type}.md is out of date with its help: run npm run docs`);
      });

      it(`its help fits a sidebar (en-US: at most ${WORDS[type] ?? DEFAULT_WORDS} words)`, function () {
        const count = words(help(type));
        assert.ok(count <= (WORDS[type] ?? DEFAULT_WORDS), `locales/en-US/${type}.html has ${count} words`);
      });

      it('its help in every language names its reference page', function () {
        for (const lang of LANGS)
          assert.ok(help(type, lang).includes(`docs/nodes/${type}.md`), `locales/${lang}/${type}.html names docs/nodes/${type}.md`);
      });
    });
  }

  // msg.detection is what flows read most: its fields are named where a user looks, the sidebar.
  describe('the help of each node that emits msg.detection names its every field, in every language', function () {
    const { detectionView } = require(path.join(ROOT, 'dist', 'lib', 'events', 'detection-view'));
    // a view of an empty event has every field of its kind (null where the event says nothing)
    const fields = [...new Set(['face', 'lpr'].flatMap((kind) => Object.keys(detectionView({}, kind))))].sort();
    for (const type of ['detection-in', 'detection-sample']) {
      for (const lang of LANGS) {
        it(`${type}, ${lang}`, function () {
          const named = [...help(type, lang).matchAll(/<dt\b[^>]*>detection\.(\w+) /g)].map((m) => m[1]);
          assert.deepEqual([...named].sort(), fields, `locales/${lang}/${type}.html: a <dt>detection.<field></dt> for each field`);
        });
      }
    }
  });

  it('a disagreement names the node and the option', function () {
    const parts = helpParts(help('detection-switch'));
    const markdown = render('detection-switch', parts);
    const changed = markdown.replace(/(\| Event \| [^|]+ \| )[^\n]*/, '$1something else |');
    assert.notEqual(changed, markdown);
    const problems = disagreements('detection-switch', helpRows(parts, 'Options'), docsRows(changed, 'Options'), 'Options');
    assert.equal(problems.length, 1);
    assert.match(problems[0], /^detection-switch: option "Event" says ".+" in the help but "something else" in docs\/nodes\/detection-switch\.md$/);
    const missing = markdown.replace(/\n\| Event \|[^\n]*/, '');
    assert.deepEqual(disagreements('detection-switch', helpRows(parts, 'Options'), docsRows(missing, 'Options'), 'Options'), [
      'detection-switch: option "Event" is in the help but not in docs/nodes/detection-switch.md',
    ]);
  });
});
