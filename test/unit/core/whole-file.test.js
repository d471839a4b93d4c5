'use strict';
/**
 * lib/core/whole-file.ts: a small file written whole (through a temporary
 * file renamed over it, none left behind), writes to one path one at a time
 * in the order asked, so the last asked for is the one on disk; read as
 * undefined when there is none; removed with its temporary file.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { readWholeFile, removeWholeFile, writeWholeFile } = require('../../../dist/lib/core/whole-file');

describe('lib/core/whole-file', () => {
  let dir;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'whole-file-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('writes the whole text, making the folder, leaving no temporary file; reads it back', async () => {
    const file = path.join(dir, 'a', 'b', 'state.json');
    await writeWholeFile(file, '{"v":1}');
    assert.equal(await readWholeFile(file), '{"v":1}');
    await writeWholeFile(file, '');
    assert.equal(await readWholeFile(file), '', 'an empty file is text, not none');
    assert.deepEqual(fs.readdirSync(path.dirname(file)), ['state.json']);
  });

  it('writes to one path wait for each other: the last asked for is on disk, and each resolves once its own is', async () => {
    const file = path.join(dir, 'state.json');
    const texts = Array.from({ length: 20 }, (_, i) => `text ${i} `.repeat(1000));
    const seen = await Promise.all(texts.map((text) => writeWholeFile(file, text).then(() => fs.readFileSync(file, 'utf8'))));
    assert.equal(fs.readFileSync(file, 'utf8'), texts[19]);
    seen.forEach((text, i) => assert.ok(texts.indexOf(text) >= i, `write ${i} resolved before it was on disk`));
  });

  it('a write that fails rejects, and does not stop the next one', async () => {
    fs.writeFileSync(path.join(dir, 'blocker'), 'a file, not a folder');
    const file = path.join(dir, 'blocker', 'state.json');
    const failed = writeWholeFile(file, 'one');
    const next = writeWholeFile(path.join(dir, 'other.json'), 'two');
    await assert.rejects(failed, (err) => ['ENOTDIR', 'EEXIST'].includes(err.code));
    await next;
    fs.rmSync(path.join(dir, 'blocker'));
    await writeWholeFile(file, 'three');
    assert.equal(await readWholeFile(file), 'three');
  });

  it('reads none where there is no file; other failures are errors', async () => {
    assert.equal(await readWholeFile(path.join(dir, 'missing.json')), undefined);
    assert.equal(await readWholeFile(path.join(dir, 'no', 'such', 'folder.json')), undefined);
    await assert.rejects(readWholeFile(dir), (err) => err.code === 'EISDIR');
  });

  it('removes a file and its temporary file; one that is not there is no error', async () => {
    const file = path.join(dir, 'state.json');
    fs.writeFileSync(file, 'x');
    fs.writeFileSync(`${file}.tmp`, 'half');
    fs.writeFileSync(path.join(dir, 'other.json'), 'y');
    await removeWholeFile(file);
    assert.deepEqual(fs.readdirSync(dir), ['other.json']);
    await removeWholeFile(file);
    await assert.rejects(removeWholeFile(dir), (err) => ['EISDIR', 'EPERM'].includes(err.code), 'a folder is not removed');
  });
});
