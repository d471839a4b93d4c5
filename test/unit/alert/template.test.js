'use strict';
/** lib/alert/template.ts: templates of fields, unknown fields, lines left out; the catalogs' defaults. */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { ROOT } = require('../../support');
const { ALERT_FIELDS, renderTemplate, unknownFields } = require('../../../dist/lib/alert');

const empty = () => Object.fromEntries(ALERT_FIELDS.map((f) => [f, '']));

describe('alert templates', function () {
  it('replaces each field with its value', () => {
    const values = { ...empty(), plate: 'XYZ987', camera: 'Gate 2' };
    assert.equal(renderTemplate('Plate {plate} at {camera}', values), 'Plate XYZ987 at Gate 2');
    assert.equal(renderTemplate('{plate}{plate}', values), 'XYZ987XYZ987');
  });

  it('leaves out a line whose fields are all empty, keeps one with some, and lines without fields', () => {
    const values = { ...empty(), plate: 'XYZ987', site: 'Lot A' };
    const body = 'Alert!\nPlate: {plate}\nPerson: {person}\nWhere: {camera} / {site}\n\nThanks\n\n';
    assert.equal(renderTemplate(body, values), 'Alert!\nPlate: XYZ987\nWhere:  / Lot A\n\nThanks');
    assert.equal(renderTemplate('Person: {person}\r\nPlate: {plate}', values), 'Plate: XYZ987', 'CRLF lines too');
    assert.equal(renderTemplate('{person}', values), '');
  });

  it('names the placeholders that are no field, once each; leaves them as written', () => {
    assert.deepEqual(unknownFields('{plate} {plates} {Camera} {plates} {x_1}'), ['plates', 'Camera', 'x_1']);
    assert.deepEqual(unknownFields('{plate} {} { camera } {{why}}'), [], 'no name between single braces is no placeholder');
    assert.equal(renderTemplate('{plates}: {plate}', { ...empty(), plate: 'A' }), '{plates}: A');
    for (const field of ALERT_FIELDS) assert.deepEqual(unknownFields(`{${field}}`), []);
  });

  it("every language's defaults name fields only, and a plate's body has no person line", () => {
    for (const lang of fs.readdirSync(path.join(ROOT, 'locales'))) {
      const { default: defaults } = JSON.parse(fs.readFileSync(path.join(ROOT, 'locales', lang, 'detection-alert.json'), 'utf8'))['detection-alert'];
      for (const [key, text] of Object.entries(defaults)) assert.deepEqual(unknownFields(text), [], `${lang} default.${key}`);
      const plate = renderTemplate(defaults.body, { ...empty(), plate: 'XYZ987', camera: 'Gate 2' });
      assert.equal(plate.split('\n').length, 2, `${lang}: a plate with a camera only: two lines`);
      assert.match(renderTemplate(defaults['subject-face'], { ...empty(), person: 'John Doe', camera: 'Cam 3' }), /John Doe.*Cam 3/);
      assert.match(renderTemplate(defaults['subject-lpr'], { ...empty(), plate: 'XYZ987', camera: 'Cam 3' }), /XYZ987.*Cam 3/);
    }
  });

  it("the dialog's validators name an unknown field, and are declared so that Node-RED shows the reason", () => {
    const editor = require('../../support/editor-defaults');
    const { defaults } = editor.definitions()['detection-alert'];
    const node = { _: (key, vars) => `${key} ${JSON.stringify(vars || {})}` };
    for (const name of ['subject', 'body']) {
      const { validate } = defaults[name];
      assert.equal(validate.length, 2, `${name}: (value, options)`);
      assert.equal(validate.call(node, 'At {camera} {where} {x} {where}', {}), 'detection-alert.validators.unknown-field {"fields":"{where}, {x}"}');
      assert.equal(validate.call(node, 'At {camera}\n{plate}', {}), true);
      assert.equal(validate.call(node, '', {}), true, 'empty: the default');
    }
  });

  it("the dialog offers and accepts lib's fields: it runs lib/alert/template.ts, served by the editor script", () => {
    const { editorScript } = require('../../../dist/nodes/shared/editor-script');
    const compiled = fs.readFileSync(path.join(ROOT, 'dist', 'lib', 'alert', 'template.js'), 'utf8');
    assert.ok(editorScript().includes(compiled), 'served as built');
    const source = fs.readFileSync(path.join(ROOT, 'nodes', 'detection-alert', 'editor.ts'), 'utf8');
    assert.match(source, /const FIELDS = DetectionBridgeAlert\.ALERT_FIELDS;/, "the fields offered are lib's");
    const { defaults } = require('../../support/editor-defaults').definitions()['detection-alert'];
    const node = { _: (key) => key };
    for (const field of ALERT_FIELDS) assert.equal(defaults.body.validate.call(node, `{${field}}`, {}), true, field);
    assert.notEqual(defaults.body.validate.call(node, '{plates}', {}), true);
  });
});
