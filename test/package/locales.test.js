'use strict';
/**
 * Every language the package ships says everything en-US says: each catalog
 * has every key of its en-US original (plural variants may be added, as a
 * language needs), every message keeps the same __placeholders__, and each help
 * file is the help of its node type, with the sections, subsections and
 * properties of its en-US original, every property with its type. A missing key would show English (or the
 * raw key) in the middle of a translated dialog.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { ROOT } = require('../support');

const LOCALES = path.join(ROOT, 'locales');
const BASE = 'en-US';
const languages = fs.readdirSync(LOCALES).filter((lang) => lang !== BASE);

/** Every leaf of a catalog: [dotted key, string]. */
function leaves(value, at = '', out = []) {
  if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) leaves(v, at ? `${at}.${k}` : k, out);
  else out.push([at, value]);
  return out;
}

const placeholders = (text) => [...String(text).matchAll(/__(\w+)__/g)].map((m) => m[1]).sort();
/** i18next plural variants a language may add or leave out (`_plural`, `_0`, `_one`, `_other`, …). */
const PLURAL = /_(plural|\d+|zero|one|two|few|many|other)$/;

/** A help file's outline: its <h3> sections and <h4> subsections, its <dt> properties and those without a type. */
function helpOutline(html) {
  const text = (s) =>
    s
      .replace(/<[^>]+>/g, '')
      .replace(/\s+/g, ' ')
      .trim();
  const dts = [...html.matchAll(/<dt\b[^>]*>([\s\S]*?)<\/dt>/g)].map((m) => m[1]);
  return {
    sections: [...html.matchAll(/<h3>([\s\S]*?)<\/h3>/g)].map((m) => text(m[1])),
    subsections: [...html.matchAll(/<h4>([\s\S]*?)<\/h4>/g)].map((m) => text(m[1])),
    properties: dts.map(text),
    untyped: dts.filter((dt) => !/<span class="property-type">[^<]+<\/span>/.test(dt)).map(text),
  };
}

describe('locales: every shipped language is complete', function () {
  const files = fs.readdirSync(path.join(LOCALES, BASE));
  it(`${BASE} is there, with a catalog and a help file per node type`, function () {
    const types = fs.readdirSync(path.join(ROOT, 'nodes')).filter((d) => fs.existsSync(path.join(ROOT, 'nodes', d, `${d}.ts`)));
    for (const type of types) {
      assert.ok(files.includes(`${type}.json`), `${BASE}/${type}.json`);
      assert.ok(files.includes(`${type}.html`), `${BASE}/${type}.html`);
    }
  });

  it(`${BASE} help: Details, after Inputs and Outputs for a node with ports, and every <dt> with a type`, function () {
    for (const file of files.filter((f) => f.endsWith('.html'))) {
      const type = file.replace(/\.html$/, '');
      // the node's editor file as built: its dialog script (nodes/<type>/editor.ts) is in it
      const source = fs.readFileSync(path.join(ROOT, 'dist', 'nodes', type, `${type}.html`), 'utf8');
      const outline = helpOutline(fs.readFileSync(path.join(LOCALES, BASE, file), 'utf8'));
      const expected = /\bcategory:\s*'config'/.test(source) ? ['Details'] : ['Inputs', 'Outputs', 'Details'];
      assert.deepEqual(outline.sections, expected, `locales/${BASE}/${file}: sections`);
      assert.deepEqual(outline.untyped, [], `locales/${BASE}/${file}: every <dt> has a <span class="property-type">`);
    }
  });

  for (const lang of languages) {
    describe(lang, function () {
      for (const file of files.filter((f) => f.endsWith('.json'))) {
        it(`${file}: every key of ${BASE}, with the same placeholders`, function () {
          const target = path.join(LOCALES, lang, file);
          assert.ok(fs.existsSync(target), `locales/${lang}/${file} exists`);
          const base = new Map(leaves(JSON.parse(fs.readFileSync(path.join(LOCALES, BASE, file), 'utf8'))));
          const translated = new Map(leaves(JSON.parse(fs.readFileSync(target, 'utf8'))));
          for (const [key, text] of base) {
            if (PLURAL.test(key) && !translated.has(key)) continue; // a language without that plural form
            assert.ok(translated.has(key), `locales/${lang}/${file}: ${key} is missing`);
            assert.equal(typeof translated.get(key), 'string', `locales/${lang}/${file}: ${key} is text`);
            assert.notEqual(translated.get(key).trim(), '', `locales/${lang}/${file}: ${key} is not empty`);
            const expected = placeholders(text).filter((p) => p !== 'count');
            const found = placeholders(translated.get(key)).filter((p) => p !== 'count');
            assert.deepEqual([...new Set(found)], [...new Set(expected)], `locales/${lang}/${file}: ${key} keeps the placeholders of "${text}"`);
          }
          for (const key of translated.keys()) {
            const stem = key.replace(PLURAL, '');
            assert.ok(base.has(key) || (PLURAL.test(key) && base.has(stem)), `locales/${lang}/${file}: ${key} is not a key of ${BASE}`);
          }
        });
      }
      for (const file of files.filter((f) => f.endsWith('.html'))) {
        const type = file.replace(/\.html$/, '');
        const target = path.join(LOCALES, lang, file);
        if (!fs.existsSync(target)) continue; // Node-RED shows the en-US help
        it(`${file}: the help of ${type}, with the sections and properties of ${BASE}`, function () {
          const help = fs.readFileSync(target, 'utf8');
          assert.match(help, new RegExp(`<script type="text/html" data-help-name="${type}">`), `locales/${lang}/${file} is ${type}'s help`);
          assert.ok(help.trim().endsWith('</script>'), `locales/${lang}/${file} is closed`);
          const base = helpOutline(fs.readFileSync(path.join(LOCALES, BASE, file), 'utf8'));
          const own = helpOutline(help);
          for (const part of ['sections', 'subsections', 'properties'])
            assert.equal(
              own[part].length,
              base[part].length,
              `locales/${lang}/${file}: ${part} ${own[part].join(', ')} as ${BASE}'s ${base[part].join(', ')}`,
            );
          assert.deepEqual(own.untyped, [], `locales/${lang}/${file}: every <dt> has a <span class="property-type">`);
        });
      }
    });
  }
});
