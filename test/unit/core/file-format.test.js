'use strict';
/**
 * lib/core/file-format.ts: the stamp at the head of the package's files, read
 * back only when it is one of the format asked for, and the refusal of a
 * version newer than the package's, naming both.
 */
const assert = require('node:assert/strict');
const { FormatTooNewError, parseStamp, refuseNewer, stampText } = require('../../../dist/lib/core/file-format');

describe('lib/core/file-format', () => {
  it('a stamp reads back as written', () => {
    const text = stampText('detection-bridge journal', 3);
    assert.equal(text, '{"format":"detection-bridge journal","version":3}');
    assert.deepEqual(parseStamp(text, 'detection-bridge journal'), { format: 'detection-bridge journal', version: 3 });
  });

  it('is no stamp when it names another format, has no whole positive version, or is not a JSON object', () => {
    for (const text of [
      stampText('detection-bridge dedupe keys', 1),
      '{"format":"detection-bridge journal"}',
      '{"format":"detection-bridge journal","version":"1"}',
      '{"format":"detection-bridge journal","version":0}',
      '{"format":"detection-bridge journal","version":1.5}',
      '["detection-bridge journal",1]',
      'null',
      '{"format":',
    ])
      assert.equal(parseStamp(text, 'detection-bridge journal'), undefined, text);
  });

  it('refuses a newer version with an error naming the file and both versions; its own and older ones pass', () => {
    refuseNewer('/x/journal-a.log', 'detection-bridge journal', 1, 1);
    refuseNewer('/x/journal-a.log', 'detection-bridge journal', 1, 2);
    assert.throws(
      () => refuseNewer('/x/journal-a.log', 'detection-bridge journal', 2, 1),
      (err) => {
        assert.ok(err instanceof FormatTooNewError);
        assert.equal(err.code, 'ERR_FORMAT_TOO_NEW');
        assert.deepEqual([err.path, err.format, err.found, err.supported], ['/x/journal-a.log', 'detection-bridge journal', 2, 1]);
        assert.match(
          err.message,
          /^\/x\/journal-a\.log is in detection-bridge journal format version 2, newer than this package reads \(version 1\)/,
        );
        return true;
      },
    );
  });
});
