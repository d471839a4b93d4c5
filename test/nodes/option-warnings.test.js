'use strict';
/**
 * Options a program wrote (issue 41), in a real Node-RED: the packed module,
 * a flow posted through the admin API as a program would post it, events
 * posted to a detection in over HTTP on 127.0.0.1.
 *
 * - `plateLookalikes: 1`, a number where the dialog saves '1', is the same
 *   choice: the filter passes a plate read with one look-alike.
 * - `ttl: "soon"` cannot be a window: the dedupe still deploys and runs, with
 *   the default, and the log says so once at deploy, naming the node, the
 *   option, the value and the value used.
 */
const assert = require('node:assert/strict');
const path = require('node:path');
const { ROOT, nodeRedVersion, postJson, until } = require('../support');
const { NodeRedProcess } = require('../support/nodered-process');

const { buildSampleEvent } = require(path.join(ROOT, 'dist', 'lib'));
const { currentVersion } = require(path.join(ROOT, 'dist', 'lib', 'config', 'migrate'));

const TAB = 'opt41tab';
const PATH = '/options-once';

/** A plate event read as `plate`, with its own messageId. */
function plateEvent(plate, messageId) {
  const event = buildSampleEvent('lpr', { messageId });
  event.payload.lprPlateInfo.plate = plate;
  return event;
}

/** A debug node showing the plate its messages carry. */
const plateDebug = (id) => ({
  id,
  type: 'debug',
  z: TAB,
  name: '',
  active: true,
  tosidebar: true,
  console: false,
  tostatus: false,
  complete: 'payload.payload.lprPlateInfo.plate',
  targetType: 'msg',
  wires: [],
});

/** The flow as a program writes it: numbers where the dialogs save text, and one value no dialog would save. */
function flow() {
  return [
    { id: TAB, type: 'tab', label: 'options written by a program' },
    {
      id: 'opt41in',
      type: 'detection-in',
      z: TAB,
      name: '',
      path: PATH,
      auth: 'none',
      headerName: '',
      maxBodyMiB: 16,
      validation: 'lenient',
      configVersion: currentVersion('detection-in'),
      wires: [['opt41filter', 'opt41dedupe'], []],
    },
    {
      id: 'opt41filter',
      type: 'detection-filter',
      z: TAB,
      name: 'watch list',
      property: 'payload',
      propertyType: 'msg',
      combine: 'all',
      rules: [{ t: 'plate', v: 'BOB123', vt: 'list' }],
      noMatchOutput: true,
      plateLookalikes: 1,
      plateExtraMissing: 0,
      plateSimilar: false,
      outputs: 2,
      configVersion: currentVersion('detection-filter'),
      wires: [['matched'], ['other']],
    },
    {
      id: 'opt41dedupe',
      type: 'detection-dedupe',
      z: TAB,
      name: 'front gate',
      mode: 'id',
      key: 'messageId',
      keyType: 'msg',
      missingKey: 'pass',
      ttl: 'soon',
      ttlUnits: 'h',
      maxKeys: 1000,
      configVersion: currentVersion('detection-dedupe'),
      wires: [['deduped']],
    },
    plateDebug('matched'),
    plateDebug('other'),
    plateDebug('deduped'),
  ];
}

describe(`options written by a program, through the admin API (Node-RED ${nodeRedVersion()})`, function () {
  this.timeout(120000);
  let nr;
  let comms;

  before(async function () {
    this.timeout(240000);
    nr = await NodeRedProcess.create();
    await nr.start();
    comms = await nr.openComms();
    await nr.deploy(flow(), { [PATH]: 405 });
  });

  afterEach(function () {
    if (this.currentTest && this.currentTest.state === 'failed' && nr) console.log(`\n---- Node-RED output ----\n${nr.logText()}\n----`);
  });

  after(async function () {
    this.timeout(30000);
    if (comms) comms.close();
    if (nr) await nr.cleanup();
  });

  const plates = (debug) => comms.debug(debug).map((d) => d.msg);
  const post = async (event) => {
    const res = await postJson(`${nr.url}${PATH}`, event);
    assert.equal(res.status, 200, res.text);
  };

  it('plateLookalikes: 1 (a number) matches a plate read with one look-alike, as the dialog\'s "1" does', async () => {
    await post(plateEvent('8OB123', 'lookalike-1')); // B read as 8: one look-alike of BOB123
    await post(plateEvent('XYZ987', 'unrelated-1'));
    await until(() => plates('matched').length + plates('other').length === 2, 20000, 'both events through the filter');
    assert.deepEqual(plates('matched'), ['8OB123'], 'the look-alike passes');
    assert.deepEqual(plates('other'), ['XYZ987'], 'an unrelated plate does not');
    assert.doesNotMatch(nr.logText(1000), /watch list.*cannot use/, 'no warning about the filter: 1 is a choice it reads');
  });

  it('ttl "soon" deploys, runs with the default, and the log names the node, ttl, "soon" and the value used', async () => {
    const warning =
      /\[warn\] \[detection-dedupe:front gate\] dedupe "front gate" cannot use "soon" for its option ttl \("soon" is not a number\): it runs with 1 instead/;
    await until(() => warning.test(nr.logText(1000)), 20000, 'the warning in the log');
    await post(plateEvent('DUP001', 'dedupe-1'));
    await post(plateEvent('DUP001', 'dedupe-1')); // the same messageId: a repeat within the window
    await post(plateEvent('DUP002', 'dedupe-2'));
    await until(() => plates('deduped').includes('DUP002'), 20000, 'the dedupe runs');
    assert.deepEqual(
      plates('deduped').filter((p) => p.startsWith('DUP')),
      ['DUP001', 'DUP002'],
      'the repeat dropped: a window of 1 h',
    );
    const lines = nr
      .logText(1000)
      .split('\n')
      .filter((l) => /cannot use .* for its option/.test(l));
    assert.equal(lines.length, 1, `one warning, at deploy: ${lines.join('\n')}`);
    assert.deepEqual(nr.errorLines(), []);
  });
});
