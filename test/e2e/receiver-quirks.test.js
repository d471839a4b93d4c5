'use strict';
/**
 * Every real event gets in: detection-in in a real Node-RED process (the
 * packed module), fed over real sockets the way real senders write: events a
 * .NET service plausibly sends, JSON as text/plain, invalid UTF-8, a body
 * that stops arriving, a client that writes 4 MB before it reads.
 */
const assert = require('node:assert/strict');
const path = require('node:path');
const { nodeRedVersion, request, rawClient, postJson, until } = require('../support');
const { NodeRedProcess, probeFunction, readProbeLines, fileNode } = require('../support/nodered-process');
const ev = require('../fixtures/events');

const TAB = 'e2equirkstab0001';
const TOKEN = 'e2e-quirks-token';
const MiB = 1024 * 1024;

/** A detection-in per mode, each output probed into one file. */
function quirksFlow(probeFile) {
  const receiver = (id, extra) => ({
    id,
    type: 'detection-in',
    z: TAB,
    name: '',
    auth: 'none',
    headerName: '',
    maxBodyMiB: 16,
    wires: [[`${id}-p1`], [`${id}-p2`]],
    ...extra,
  });
  const probes = (id) =>
    [1, 2].map((output) => ({
      id: `${id}-p${output}`,
      type: 'function',
      z: TAB,
      name: '',
      outputs: 1,
      timeout: 0,
      noerr: 0,
      initialize: '',
      finalize: '',
      libs: [],
      func: probeFunction(
        `{ node: '${id}', output: ${output}, messageId: msg.messageId || (msg.payload && msg.payload.payload && msg.payload.payload.messageId), kind: msg.kind, name: msg.payload && msg.payload.payload && msg.payload.payload.personInfo && msg.payload.payload.personInfo.firstName, warnings: msg.warnings && msg.warnings.map((w) => w.path), errors: msg.errors && msg.errors.map((e) => e.path) }`,
      ),
      wires: [['e2equirksfile001']],
    }));
  // Ids apart from option values: Node-RED takes a property equal to a node id for a reference to it.
  const ids = ['in-lenient', 'in-strict', 'in-guarded'];
  return [
    { id: TAB, type: 'tab', label: 'quirks' },
    // lenient by default: no validation property, as a node dropped from the palette has
    receiver('in-lenient', { path: '/q/lenient' }),
    receiver('in-strict', { path: '/q/strict', validation: 'strict' }),
    receiver('in-guarded', { path: '/q/guarded', auth: 'bearer', stallSeconds: 0.5, credentials: { token: TOKEN } }),
    ...ids.flatMap(probes),
    // a core endpoint, to show other routes keep Node's own 100 Continue
    { id: 'core-in', type: 'http in', z: TAB, name: '', url: '/q/core', method: 'post', upload: false, swaggerDoc: '', wires: [['core-out']] },
    { id: 'core-out', type: 'http response', z: TAB, name: '', statusCode: '200', headers: {}, wires: [] },
    fileNode('e2equirksfile001', TAB, probeFile),
  ];
}

const head = (target, length, extra = '') =>
  `POST ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${extra}Content-Length: ${length}\r\n\r\n`;

describe(`e2e: every real event gets in, Node-RED ${nodeRedVersion()}`, function () {
  this.timeout(60000);
  let nr;
  let probeFile;
  let comms;
  const lines = () => readProbeLines(probeFile);
  /** Sends `event` with a unique messageId and waits for it on a probe. */
  async function deliver(target, event, id, headers = {}) {
    event.payload.messageId = id;
    const res = await postJson(`${nr.url}${target}`, event, headers);
    return res;
  }
  const lineFor = (id) => until(() => lines().find((l) => l.messageId === id), 10000, `message ${id} at a probe`);

  before(async function () {
    this.timeout(180000);
    nr = await NodeRedProcess.create();
    probeFile = path.join(nr.userDir, 'quirks.jsonl');
    await nr.start();
    comms = await nr.openComms();
    await nr.deploy(quirksFlow(probeFile), { '/q/lenient': 405, '/q/strict': 405, '/q/guarded': 405, '/q/core': 404 });
  });

  afterEach(function () {
    if (this.currentTest && this.currentTest.state === 'failed' && nr) console.log(`\n---- Node-RED output ----\n${nr.logText()}\n----`);
  });

  after(async function () {
    this.timeout(30000);
    if (comms) comms.close();
    if (nr) await nr.cleanup();
  });

  it('lenient by default: each deviating event delivered once on output 1, with its warnings, visible in the status and the debug sidebar', async () => {
    const cases = ev.deviatingEvents();
    for (const [i, { name, event, paths }] of cases.entries()) {
      const res = await deliver('/q/lenient', event, `lenient-${i}`);
      assert.equal(res.status, 200, `${name}: ${res.text}`);
      const line = await lineFor(`lenient-${i}`);
      assert.equal(line.output, 1, name);
      assert.deepEqual(line.warnings, paths, name);
    }
    // a last clean event: once it is out, any second copy of the others would be too
    const clean = await deliver('/q/lenient', ev.fullLpr(), 'lenient-clean');
    assert.equal(clean.status, 200);
    const last = await lineFor('lenient-clean');
    assert.equal(last.warnings, undefined, 'no warnings property on a clean event');
    const mine = lines().filter((l) => l.node === 'in-lenient');
    assert.deepEqual(
      mine.map((l) => l.messageId),
      [...cases.map((_, i) => `lenient-${i}`), 'lenient-clean'],
      'each exactly once, in order',
    );
    const status = await until(
      () => {
        const s = comms.status('in-lenient');
        return s && / · 7 in · 6 with warnings · /.test(s.text) ? s : null;
      },
      5000,
      'the status counting the warnings',
    ).catch((err) => {
      throw new Error(`${err.message}: ${JSON.stringify(comms.status('in-lenient'))}`);
    });
    assert.equal(status.fill, 'green');
    // one warning per place in the sidebar (the GETs of the readiness check are the rejections)
    await until(() => comms.debug('in-lenient').length >= cases.length, 5000, 'the warnings in the debug sidebar');
    const warned = comms.debug('in-lenient').map((d) => d.msg);
    assert.ok(
      warned.some((text) => /serverContext\.Region/.test(text)),
      warned.join('\n'),
    );
  });

  it('lenient: .NET dates and JSON sent as text/plain are no deviation at all', async () => {
    const event = ev.dotnetDates();
    event.payload.messageId = 'lenient-dotnet';
    const res = await request(`${nr.url}/q/strict`, { headers: { 'content-type': 'text/plain; charset=utf-8' }, body: JSON.stringify(event) });
    assert.equal(res.status, 200, res.text);
    const line = await lineFor('lenient-dotnet');
    assert.equal(line.node, 'in-strict', 'even strict mode takes them');
    assert.equal(line.warnings, undefined);
  });

  it('lenient: what a flow cannot use is refused with 422 and sent on output 2', async () => {
    const cases = ev.unusableEvents();
    for (const { name, event, path: place } of cases) {
      const res = await postJson(`${nr.url}/q/lenient`, event);
      assert.equal(res.status, 422, name);
      assert.ok(
        res.json.errors.some((e) => e.path === place),
        `${name}: ${res.text}`,
      );
    }
    const refused = await until(
      () => {
        const got = lines().filter((l) => l.node === 'in-lenient' && l.output === 2);
        return got.length === cases.length ? got : null;
      },
      10000,
      'every unusable event on output 2',
    );
    assert.ok(refused.every((l) => l.errors.length > 0));
  });

  it('names a property in the wrong case in the answer', async () => {
    const event = ev.minimalFace();
    event.PublishType = event.publishType;
    delete event.publishType;
    const res = await postJson(`${nr.url}/q/lenient`, event);
    assert.equal(res.status, 422);
    assert.match(res.json.detail, /"PublishType" is present in another case: the events bridge sends camelCase/);
  });

  it('strict: every deviation refused with 422 and sent on output 2, as before', async () => {
    const cases = ev.deviatingEvents();
    for (const [i, { name, event, paths }] of cases.entries()) {
      const res = await deliver('/q/strict', event, `strict-${i}`);
      assert.equal(res.status, 422, name);
      assert.deepEqual(
        res.json.errors.map((e) => e.path),
        paths,
        name,
      );
      const line = await lineFor(`strict-${i}`);
      assert.equal(line.output, 2, name);
    }
  });

  it('refuses invalid UTF-8 with 400 and the byte offset, in a small and in a large body', async () => {
    for (const source of [ev.minimalLpr(), ev.bigLpr(MiB)]) {
      const body = Buffer.from(JSON.stringify(source));
      const offset = body.indexOf(source.payload.lprPlateInfo.plate) + 1;
      body[offset] = 0xc0;
      const res = await request(`${nr.url}/q/lenient`, { headers: { 'content-type': 'application/json' }, body });
      assert.equal(res.status, 400);
      assert.equal(res.headers['content-type'], 'application/problem+json');
      assert.equal(res.json.position, offset);
    }
  });

  it('answers a stalled body 408 with a problem body once the configured time passes, and closes', async () => {
    const body = JSON.stringify(ev.minimalLpr());
    const client = await rawClient(nr.url);
    await client.write(head('/q/guarded', body.length, `Authorization: Bearer ${TOKEN}\r\n`) + body.slice(0, 30));
    const answer = await client.answer();
    assert.equal(answer.status, 408);
    assert.equal(answer.json.type, 'urn:detection-bridge:problem:request-timeout');
    assert.match(answer.json.detail, /0\.5 s/);
    await client.whenClosed();
  });

  it('a 4 MB body with a wrong token, written in full before reading, still yields 401', async () => {
    const body = JSON.stringify(ev.bigLpr(4 * MiB));
    const client = await rawClient(nr.url);
    await client.write(head('/q/guarded', Buffer.byteLength(body), 'Authorization: Bearer wrong-token\r\n') + body);
    const answer = await client.answer();
    assert.equal(answer.status, 401);
    assert.equal(answer.json.type, 'urn:detection-bridge:problem:unauthorized');
    client.close();
  });

  it('Expect: 100-continue: a wrong token or too large a size is answered before the body is invited, a right one gets 100 Continue', async () => {
    const body = JSON.stringify(ev.bigLpr(2 * MiB));
    const wrong = await rawClient(nr.url);
    await wrong.write(head('/q/guarded', Buffer.byteLength(body), 'Authorization: Bearer wrong-token\r\nExpect: 100-continue\r\n'));
    const refused = await wrong.answer();
    assert.equal(refused.status, 401, 'the final answer, with no 100 Continue before it');
    assert.equal(refused.closing, true, 'the body never invited, the connection ends');
    await wrong.whenClosed();

    const right = await rawClient(nr.url);
    await right.write(head('/q/guarded', Buffer.byteLength(body), `Authorization: Bearer ${TOKEN}\r\nExpect: 100-continue\r\n`));
    assert.equal((await right.answer()).status, 100);
    await right.write(body);
    assert.equal((await right.answer()).status, 200);
    right.close();

    const tooLarge = await rawClient(nr.url);
    await tooLarge.write(head('/q/guarded', 20 * MiB, `Authorization: Bearer ${TOKEN}\r\nExpect: 100-continue\r\n`));
    const large = await tooLarge.answer();
    assert.equal(large.status, 413, 'a declared size over the limit is refused before the body is invited');
    await tooLarge.whenClosed();

    const core = await rawClient(nr.url);
    await core.write(head('/q/core', 2, 'Expect: 100-continue\r\n'));
    assert.equal((await core.answer()).status, 100, "another route gets Node's own 100 Continue");
    await core.write('{}');
    assert.equal((await core.answer()).status, 200);
    core.close();
  });

  it('saw no error in the Node-RED log', () => {
    assert.deepEqual(nr.errorLines(), []);
  });
});
