'use strict';
/**
 * detection-switch inside the Node-RED runtime (node-red-node-test-helper).
 */
const assert = require('node:assert/strict');
const { getHelper, translatedModule, translate, collect, until, completeProbe, trackFinished } = require('../support');
const ev = require('../fixtures/events');

const TYPE = 'detection-switch';
const helper = getHelper();

function flow(config = {}, extra = []) {
  return [
    { id: 'f1', type: 'tab', label: 'test' },
    {
      id: 'sw',
      type: TYPE,
      z: 'f1',
      name: '',
      property: 'payload',
      propertyType: 'msg',
      otherOutput: true,
      outputs: 3,
      wires: [['face'], ['plate'], ['other']],
      ...config,
    },
    { id: 'face', type: 'helper', z: 'f1' },
    { id: 'plate', type: 'helper', z: 'f1' },
    { id: 'other', type: 'helper', z: 'f1' },
    ...extra,
  ];
}

/** Every message each helper gets, by helper id. */
function record() {
  const got = { face: [], plate: [], other: [] };
  for (const id of Object.keys(got)) helper.getNode(id).on('input', (msg) => got[id].push(msg));
  return got;
}

const lastStatus = (node) => {
  const calls = node.status.getCalls();
  return calls.length ? calls[calls.length - 1].args[0] : undefined;
};

describe('detection-switch node', function () {
  beforeEach(() => helper.startServer());
  afterEach(async () => {
    await helper.unload();
    await helper.stopServer();
  });

  it('routes face to output 1, plate to output 2, anything else to output 3', async () => {
    await helper.load(translatedModule(TYPE), flow({}, completeProbe('sw', 'f1')));
    const sw = helper.getNode('sw');
    const finished = trackFinished(sw);
    const got = record();
    const face = { payload: ev.fullFace() };
    const plate = { payload: ev.minimalLpr() };
    const others = [{ payload: { publishType: 'WebHookPosPayload' } }, { payload: 'text' }, { topic: 'no payload' }, { payload: null }];
    sw.receive(face);
    sw.receive(plate);
    for (const m of others) sw.receive(m);
    await finished();
    await until(() => got.other.length === 4, 3000, 'four others');
    assert.equal(got.face.length, 1);
    assert.equal(got.plate.length, 1);
    assert.equal(got.face[0], face, 'the message itself, not a copy');
    assert.equal(got.plate[0], plate);
    assert.deepEqual(
      got.other.map((m) => m.topic || typeof m.payload),
      ['object', 'string', 'no payload', 'object'],
    );
  });

  it('sends without copying the message: one send, one slot, the same 1 MB event', async () => {
    await helper.load(translatedModule(TYPE), flow());
    const sw = helper.getNode('sw');
    const got = collect(helper.getNode('plate'), 1);
    const event = ev.bigLpr(1024 * 1024);
    const msg = { payload: event };
    sw.receive(msg);
    const [out] = await got;
    assert.equal(out, msg);
    assert.equal(out.payload, event);
    const sends = sw.send.getCalls();
    assert.equal(sends.length, 1);
    assert.deepEqual(
      sends[0].args[0].map((m) => (m === null ? null : 'msg')),
      [null, 'msg', null],
    );
  });

  it('shows counts per output in its status', async () => {
    await helper.load(translatedModule(TYPE), flow());
    const sw = helper.getNode('sw');
    const got = record();
    for (let i = 0; i < 3; i++) sw.receive({ payload: ev.minimalFace() });
    for (let i = 0; i < 5; i++) sw.receive({ payload: ev.minimalLpr() });
    sw.receive({ payload: 42 });
    await until(() => got.other.length === 1 && got.plate.length === 5, 3000, 'messages');
    const status = await until(
      () => {
        const s = lastStatus(sw);
        return s && s.text === 'face 3 · plate 5 · other 1' ? s : null;
      },
      3000,
      'status with counts',
    );
    assert.equal(status.fill, 'green');
  });

  it('with the third output off, drops other messages and counts them', async () => {
    await helper.load(translatedModule(TYPE), flow({ otherOutput: false, outputs: 2, wires: [['face'], ['plate']] }, completeProbe('sw', 'f1')));
    const sw = helper.getNode('sw');
    const finished = trackFinished(sw);
    const got = record();
    sw.receive({ payload: { publishType: 'Unknown' } });
    sw.receive({ payload: 'x' });
    sw.receive({ payload: ev.minimalLpr() });
    await finished();
    await until(() => got.plate.length === 1, 3000, 'plate');
    assert.equal(got.other.length, 0);
    await until(() => (lastStatus(sw) || {}).text === 'face 0 · plate 1 · dropped 2', 3000, 'status with dropped count');
    // the helper spies on every node's send: keep the switch's own calls
    const sends = sw.send.getCalls().filter((call) => call.thisValue === sw);
    assert.equal(sends.length, 1);
    for (const call of sends) assert.equal(call.args[0].length, 2, 'two slots');
  });

  it('reads the publishType string itself, e.g. msg.topic', async () => {
    await helper.load(translatedModule(TYPE), flow({ property: 'topic' }));
    const sw = helper.getNode('sw');
    const got = record();
    sw.receive({ topic: 'WebHookFaceRecPayload', payload: 'anything' });
    sw.receive({ topic: 'WebHookLprPayload' });
    sw.receive({ topic: 'other' });
    await until(() => got.face.length + got.plate.length + got.other.length === 3, 3000, 'three messages');
    assert.deepEqual([got.face.length, got.plate.length, got.other.length], [1, 1, 1]);
  });

  it('reads a nested msg property, a missing one counting as other', async () => {
    await helper.load(translatedModule(TYPE), flow({ property: 'data.event' }));
    const sw = helper.getNode('sw');
    const got = record();
    sw.receive({ data: { event: ev.minimalLpr() } });
    sw.receive({ payload: ev.minimalLpr() });
    await until(() => got.plate.length === 1 && got.other.length === 1, 3000, 'two messages');
    assert.equal(sw.error.callCount, 0);
  });

  it('reads flow context and JSONata', async () => {
    await helper.load(translatedModule(TYPE), [
      ...flow({ property: 'current', propertyType: 'flow' }),
      {
        id: 'sw2',
        type: TYPE,
        z: 'f1',
        property: '$.payload.event',
        propertyType: 'jsonata',
        otherOutput: true,
        wires: [['face'], ['plate'], ['other']],
      },
    ]);
    const got = record();
    helper.getNode('sw').context().flow.set('current', ev.minimalFace());
    helper.getNode('sw').receive({ payload: 'ignored' });
    helper.getNode('sw2').receive({ payload: { event: ev.minimalLpr() } });
    await until(() => got.face.length === 1 && got.plate.length === 1, 3000, 'two messages');
  });

  it('sends a failing JSONata expression to Catch nodes', async () => {
    await helper.load(
      translatedModule(TYPE),
      flow({ property: '$error("boom")', propertyType: 'jsonata' }, [
        { id: 'c1', type: 'catch', z: 'f1', scope: null, uncaught: false, wires: [['caught']] },
        { id: 'caught', type: 'helper', z: 'f1' },
      ]),
    );
    const got = collect(helper.getNode('caught'), 1);
    helper.getNode('sw').receive({ payload: ev.minimalLpr(), _msgid: 'm1' });
    const [msg] = await got;
    assert.match(msg.error.message, /detection switch could not read jsonata:\$error\("boom"\): boom/);
    assert.equal(msg.error.code, 'PROPERTY_READ');
    assert.equal(msg.error.source.id, 'sw');
  });

  it('reports an invalid JSONata expression at deploy and fails every message', async () => {
    await helper.load(translatedModule(TYPE), flow({ property: '$$$(', propertyType: 'jsonata' }));
    const sw = helper.getNode('sw');
    await until(() => sw.error.called, 2000, 'an error');
    assert.match(sw.error.firstCall.args[0], /^detection switch cannot use the event property jsonata:\$\$\$\(/);
    // without figures: the catalog key, for the editor to show in its language
    assert.equal(lastStatus(sw).text, 'detection-switch.status.config');
    assert.equal(translate(lastStatus(sw).text), 'configuration error');
    sw.receive({ payload: ev.minimalLpr() });
    await until(() => sw.error.callCount === 2, 2000, 'a second error for the message');
  });

  it('keeps three outputs for flows written without the option', async () => {
    const config = flow()[1];
    delete config.otherOutput;
    await helper.load(translatedModule(TYPE), [flow()[0], config, ...flow().slice(2)]);
    const got = record();
    helper.getNode('sw').receive({ payload: 1 });
    await until(() => got.other.length === 1, 2000, 'other');
  });
});
