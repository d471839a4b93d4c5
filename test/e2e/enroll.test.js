'use strict';
/**
 * End to end, the closed loop of issue 15 in a real Node-RED with the packed
 * module: the enroll-and-detect example (as Import → Examples serves it)
 * enrolls a plate on the simulated bridge (a click on its inject button),
 * the simulator delivers detections drawing from what is enrolled, and the
 * events the receiver emits for that plate carry the externalId and the
 * additional fields given at enrollment; after a click on "unenroll", no
 * event built after the bridge let go of the plate carries them.
 *
 * The simulator runs in this process (dist/sim): its store is the bridge's
 * state, and its delivery says which events were built when. The receiver's
 * output is recorded by a probe added to the example's detection-in (a
 * second wire), and the example's own debug node is read over the editor's
 * comms websocket.
 */
const assert = require('node:assert/strict');
const path = require('node:path');
const { ROOT, nodeRedVersion, request, until } = require('../support');
const { NodeRedProcess, readProbeLines, probeFunction, functionNode, fileNode } = require('../support/nodered-process');

const { EnrollmentStore, startSampleServer, startDelivery } = require(path.join(ROOT, 'dist', 'sim'));

const TAB = 'e2eenrolltab0001';
const EXTERNAL_ID = 'guest-42';
const PLATE = 'GST042';
const FIELDS = [
  { fieldName: 'TenantID', fieldValue: 'T-1' },
  { fieldName: 'Booking', fieldValue: 'B-1001' },
];

describe(`e2e: enroll from a flow, detect, receive (Node-RED ${nodeRedVersion()})`, function () {
  this.timeout(90000);
  let nr;
  let comms;
  let server;
  let run;

  before(async function () {
    this.timeout(180000);
    nr = await NodeRedProcess.create();
    await nr.start();
    comms = await nr.openComms();
  });

  afterEach(function () {
    if (this.currentTest && this.currentTest.state === 'failed' && nr) console.log(`\n---- Node-RED output ----\n${nr.logText()}\n----`);
  });

  after(async function () {
    this.timeout(30000);
    if (run) {
      run.stop();
      await run.done;
    }
    if (server) await server.close();
    if (comms) comms.close();
    if (nr) await nr.cleanup();
  });

  it('events of an enrolled plate carry its externalId and fields; unenrolling stops them', async () => {
    const store = new EnrollmentStore();
    server = await startSampleServer({ port: 0, enrollments: store });
    const example = await nr.example('enroll-and-detect');
    const byName = (name) => example.find((n) => n.name === name);
    const receiver = example.find((n) => n.type === 'detection-in');
    assert.equal(receiver.path, '/detections/enrolled');
    const probeFile = path.join(nr.userDir, 'enrolled-events.jsonl');
    const flow = [
      { id: TAB, type: 'tab', label: 'enroll-and-detect' },
      ...example.map((n) => {
        if (n.type === 'events-bridge') return { ...n, url: server.url, credentials: { token: store.token } };
        // the probe: a second wire from the receiver
        if (n.id === receiver.id) return { ...n, z: TAB, wires: [[...n.wires[0], 'e2e-enroll-probe'], n.wires[1]] };
        return { ...n, z: TAB };
      }),
      functionNode(
        'e2e-enroll-probe',
        TAB,
        probeFunction(
          '{ messageId: msg.messageId, externalId: msg.payload.externalId, fields: msg.payload.fields, plate: msg.payload.payload.lprPlateInfo.plate }',
        ),
        'e2e-enroll-file',
      ),
      fileNode('e2e-enroll-file', TAB, probeFile),
    ];
    await nr.deploy(flow, { '/detections/enrolled': 405 });

    // The bridge delivers plates, half of them enrolled ones while any is enrolled.
    const sent = new Map();
    run = startDelivery({
      url: `${nr.url}/detections/enrolled`,
      forever: true,
      rate: 25,
      mix: 1,
      concurrency: 2,
      enrollments: store,
      enrolledShare: 0.5,
    });
    run.on('sent', (s) => sent.set(s.messageId, s));
    const received = () => readProbeLines(probeFile);
    await until(() => received().length >= 5, 20000, 'events before any enrollment');
    assert.ok(
      received().every((e) => e.externalId === null && e.fields === null && e.plate !== PLATE),
      'nothing enrolled: no externalId',
    );

    const click = async (name) => {
      const res = await request(`${nr.url}/inject/${byName(name).id}`, { method: 'POST' });
      assert.equal(res.status, 200, `inject "${name}": ${res.text}`);
    };
    await click('enroll plate GST042');
    await until(() => store.get('lpr', EXTERNAL_ID), 10000, 'the plate enrolled on the bridge');
    assert.deepEqual(store.get('lpr', EXTERNAL_ID).additionalFields, FIELDS);

    const ofPlate = () => received().filter((e) => e.plate === PLATE);
    await until(() => ofPlate().length >= 4, 20000, 'events of the enrolled plate');
    for (const e of ofPlate()) {
      assert.equal(e.externalId, EXTERNAL_ID, JSON.stringify(e));
      assert.deepEqual(e.fields, FIELDS);
    }
    assert.ok(
      received().every((e) => (e.externalId === null) === (e.plate !== PLATE)),
      'every other event is of a plate nobody enrolled, with externalId null',
    );
    // the example's filter lets them through to its debug node, which shows them as a person reads them
    const shown = () => comms.debug(byName('enrolled detections').id).map((d) => d.msg);
    await until(() => shown().length >= 2, 10000, 'the debug messages of enrolled detections');
    assert.equal(shown()[0], `${EXTERNAL_ID}: ${PLATE} at Gate 2 LPR · TenantID=T-1, Booking=B-1001`);

    await click('unenroll guest-42');
    await until(() => !store.get('lpr', EXTERNAL_ID), 10000, 'the plate unenrolled on the bridge');
    // Events built from now on cannot be of the plate; those built before may still be on their way.
    const after = new Set();
    run.on('sent', (s) => after.add(s.messageId));
    const arrivedAfter = () => received().filter((e) => after.has(e.messageId));
    await until(() => arrivedAfter().length >= 10, 20000, 'ten events built after the unenrollment');
    assert.deepEqual(
      arrivedAfter().filter((e) => e.externalId !== null || e.plate === PLATE),
      [],
      'no event of the unenrolled plate',
    );
    assert.ok(
      [...after].every((id) => sent.get(id).externalId === null),
      'the simulator drew none from the watch list',
    );
    assert.deepEqual(nr.errorLines(), []);
  });
});
