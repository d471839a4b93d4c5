'use strict';
/**
 * lib/core/frames.ts on its own, over bytes in memory (the append log's
 * tests read frames through real files): a frame is read back as written,
 * whatever comes around it; damage between whole frames is skipped and
 * reported, a damaged end is the torn tail, and the caller's own verdict on
 * a record is reported without stopping the replay.
 */
const assert = require('node:assert/strict');
const { frame, readFrames, FRAME_HEADER_BYTES } = require('../../../dist/lib/core/frames');

/** A LogReader over `bytes`, as AppendLog hands one to a replay. */
const reader = (bytes) => ({
  size: bytes.length,
  read: async (position, length) => bytes.subarray(position, Math.min(bytes.length, position + length)),
});

const bytesOf = (...frames) => Buffer.concat(frames.flat());

/** Every frame of `bytes` of the given types, and what readFrames said. */
async function replay(bytes, types = [1, 2], verdict = () => undefined) {
  const seen = [];
  const { end, problems } = await readFrames(reader(bytes), types, (f) => {
    seen.push({ type: f.type, text: f.payload.toString(), offset: f.offset, length: f.length });
    return verdict(f);
  });
  return { seen, end, problems };
}

describe('lib/core/frames', () => {
  it('reads frames back as written: type, payload (from several parts), offset and whole length', async () => {
    const a = frame(1, [Buffer.from('he'), Buffer.from('llo')]);
    const b = frame(2, [Buffer.from('')]);
    const c = frame(1, [Buffer.from('wörld')]);
    const bytes = bytesOf(a, b, c);
    const { seen, end, problems } = await replay(bytes);
    const lengthA = FRAME_HEADER_BYTES + 5;
    const lengthC = FRAME_HEADER_BYTES + Buffer.byteLength('wörld');
    assert.deepEqual(seen, [
      { type: 1, text: 'hello', offset: 0, length: lengthA },
      { type: 2, text: '', offset: lengthA, length: FRAME_HEADER_BYTES },
      { type: 1, text: 'wörld', offset: lengthA + FRAME_HEADER_BYTES, length: lengthC },
    ]);
    assert.equal(end, bytes.length);
    assert.deepEqual(problems, []);
  });

  it('skips a frame whose payload was changed, reports it once, and reads every frame after it', async () => {
    const first = bytesOf(frame(1, [Buffer.from('one')]));
    const damaged = bytesOf(frame(1, [Buffer.from('two')]));
    damaged[FRAME_HEADER_BYTES] ^= 0xff;
    const bytes = Buffer.concat([first, damaged, bytesOf(frame(1, [Buffer.from('three')]), frame(2, [Buffer.from('four')]))]);
    const { seen, end, problems } = await replay(bytes);
    assert.deepEqual(
      seen.map((f) => f.text),
      ['one', 'three', 'four'],
    );
    assert.deepEqual(problems, [{ kind: 'checksum', offset: first.length }]);
    assert.equal(end, bytes.length);
  });

  it('a damaged or cut last frame is the torn tail: the replay ends before it', async () => {
    const whole = bytesOf(frame(1, [Buffer.from('kept')]));
    const last = bytesOf(frame(1, [Buffer.from('cut short')]));
    for (const tail of [last.subarray(0, last.length - 2), last.subarray(0, 4), Buffer.alloc(last.length)]) {
      const { seen, end, problems } = await replay(Buffer.concat([whole, tail]));
      assert.deepEqual(
        seen.map((f) => f.text),
        ['kept'],
      );
      assert.equal(end, whole.length);
      assert.deepEqual(problems, [{ kind: 'torn', offset: whole.length }]);
    }
  });

  it('a frame of a type the caller does not write is damage, not a record', async () => {
    const bytes = bytesOf(frame(1, [Buffer.from('a')]), frame(3, [Buffer.from('b')]), frame(1, [Buffer.from('c')]));
    const { seen, problems } = await replay(bytes, [1]);
    assert.deepEqual(
      seen.map((f) => f.text),
      ['a', 'c'],
    );
    assert.deepEqual(
      problems.map((p) => p.kind),
      ['checksum'],
    );
  });

  it('reports the caller’s verdict on a whole frame it cannot use, and reads on', async () => {
    const bytes = bytesOf(frame(1, [Buffer.from('good')]), frame(1, [Buffer.from('bad')]), frame(1, [Buffer.from('good')]));
    const { seen, problems, end } = await replay(bytes, [1], (f) => (f.payload.toString() === 'bad' ? 'unreadable' : undefined));
    assert.equal(seen.length, 3);
    assert.deepEqual(problems, [{ kind: 'unreadable', offset: FRAME_HEADER_BYTES + 4 }]);
    assert.equal(end, bytes.length);
  });
});
