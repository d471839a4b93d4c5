'use strict';
/**
 * End to end: the package as users get it.
 *
 * Packs the module (`npm pack`), installs the tarball into a fresh Node-RED
 * user directory, starts a real Node-RED (the one NODE_RED_PATH selects, with
 * its default admin/httpNode layout: both at `/`, default apiMaxLength) as a
 * child process on 127.0.0.1, deploys the shipped example flow plus a probe,
 * and talks to it over HTTP only.
 *
 * The probe: one core `function` node per detection-in output turns each
 * message into a compact JSON line and a core `file` node appends the lines to
 * a file in the user directory, which the test polls. The example's own nodes
 * are deployed unchanged (apart from `z`, the tab they are put on).
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { ROOT, nodeRedVersion, request, postJson, until } = require('../support');
const { MODULE, NodeRedProcess, readProbeLines, run } = require('../support/nodered-process');
const { fullFace, fullLpr, minimalFace, bigLpr } = require('../fixtures/events');

const TYPE = 'detection-in';
const SET_ID = `${MODULE}/${TYPE}`;
/** Every node type the package registers. */
const TYPES = Object.keys(require(path.join(ROOT, 'package.json'))['node-red'].nodes);

/** The probe's function body: one compact line per message. */
function probeFunc(output) {
  return `
const p = msg.payload && typeof msg.payload === 'object' ? msg.payload : {};
const inner = p.payload && typeof p.payload === 'object' ? p.payload : {};
const images = Array.isArray(inner.detectionImages) ? inner.detectionImages : [];
const headers = msg.req && msg.req.headers;
return { payload: JSON.stringify({
  output: ${output},
  topic: msg.topic,
  kind: msg.kind,
  messageId: msg.messageId,
  payloadMessageId: inner.messageId,
  resent: msg.resent,
  receivedAt: msg.receivedAt,
  hasReqHeaders: !!(headers && typeof headers === 'object'),
  contentType: headers ? headers['content-type'] : undefined,
  authHeaderPresent: !!(headers && headers.authorization),
  reqIp: msg.req ? msg.req.ip : undefined,
  errorsCount: Array.isArray(msg.errors) ? msg.errors.length : null,
  payloadKeys: Object.keys(p),
  imageChars: images.reduce((n, i) => n + (i && typeof i.image === 'string' ? i.image.length : 0), 0),
}) };
`;
}

/** The example flow on a tab, with a probe wired to each of the receiver's outputs. */
function deployableFlow(probeFile) {
  const example = JSON.parse(fs.readFileSync(path.join(ROOT, 'examples', 'receive-detections.json'), 'utf8'));
  const tab = { id: 'e2e0tab000000001', type: 'tab', label: 'e2e', disabled: false, info: '' };
  const nodes = example.map((n) => ({ ...n, z: tab.id }));
  const ins = nodes.filter((n) => n.type === TYPE);
  assert.equal(ins.length, 1, 'the example flow has one detection-in node');
  const input = ins[0];
  assert.equal(input.wires.length, 3, 'detection-in has three outputs in the example (events, invalid, failures)');
  const probes = [1, 2, 3].map((output) => ({
    id: `e2e0probe0000${output}`,
    type: 'function',
    z: tab.id,
    name: `probe output ${output}`,
    func: probeFunc(output),
    outputs: 1,
    timeout: 0,
    noerr: 0,
    initialize: '',
    finalize: '',
    libs: [],
    x: 700,
    y: 100 + 60 * output,
    wires: [['e2e0probefile001']],
  }));
  const file = {
    id: 'e2e0probefile001',
    type: 'file',
    z: tab.id,
    name: 'probe lines',
    filename: probeFile,
    filenameType: 'str',
    appendNewline: true,
    createDir: true,
    overwriteFile: 'false',
    encoding: 'utf8',
    x: 900,
    y: 190,
    wires: [[]],
  };
  input.wires = input.wires.map((targets, i) => [...targets, probes[i].id]);
  return { flow: [tab, ...nodes, ...probes, file], input };
}

/** `data-i18n` keys of the template and `_('…')` keys of the editor script. */
function i18nKeysOf(html) {
  const keys = new Set();
  for (const m of html.matchAll(/data-i18n="([^"]*)"/g)) {
    for (const part of m[1].split(';')) {
      const key = part.replace(/^\s*\[[^\]]*\]/, '').trim();
      if (key) keys.add(key);
    }
  }
  // this._('…') and node._(cond ? '…' : '…') in the editor script
  for (const call of html.matchAll(/\b_\(([^)]*)\)/g)) {
    // only dotted catalog keys, not literals passed as substitutions ({kind: 'face'})
    for (const m of call[1].matchAll(/'([^']+)'|"([^"]+)"/g)) if (/^[\w-]+(\.[\w-]+)+$/.test(m[1] || m[2])) keys.add(m[1] || m[2]);
  }
  return [...keys];
}

function lookup(catalog, key) {
  return key.split('.').reduce((v, k) => (v && typeof v === 'object' ? v[k] : undefined), catalog);
}

describe(`e2e: packed module in a real Node-RED ${nodeRedVersion()} (node ${process.version})`, function () {
  this.timeout(20000);

  let nr;
  let url;
  let nodeUrl;
  let probeFile;
  let logPrinted = false;

  function printLog(why) {
    if (logPrinted || !nr) return;
    logPrinted = true;
    console.log(`\n---- Node-RED output (${why}; last 200 lines) ----\n${nr.logText()}\n---- end Node-RED output ----`);
  }

  const probeLines = () => readProbeLines(probeFile);
  function probeLine(pred, what) {
    return until(() => probeLines().find(pred), 10000, what);
  }

  before(async function () {
    this.timeout(180000);
    const started = Date.now();
    nr = await NodeRedProcess.create();
    for (const f of [
      ...TYPES.flatMap((type) => [
        `dist/nodes/${type}/${type}.js`,
        `dist/nodes/${type}/${type}.html`,
        `dist/nodes/${type}/locales/en-US/${type}.json`,
        `dist/nodes/${type}/locales/en-US/${type}.html`,
      ]),
      ...fs.readdirSync(path.join(ROOT, 'examples')).map((f) => `examples/${f}`),
      'README.md',
      'CHANGELOG.md',
      'LICENSE',
    ]) {
      assert.ok(nr.packedFiles.includes(f), `the tarball ships ${f}`);
    }
    url = nr.url;
    nodeUrl = `${url}/detections`;
    probeFile = path.join(nr.userDir, 'probe.jsonl');
    try {
      await nr.start();
      const { flow } = deployableFlow(probeFile);
      await nr.deploy(flow);
      // the route is up once GET answers 405 from our node instead of 404
      await nr.answers('/detections', 405);
    } catch (err) {
      printLog('startup failed');
      throw err;
    }
    console.log(`      (packed, installed and started Node-RED ${nodeRedVersion()} in ${Date.now() - started} ms)`);
  });

  afterEach(function () {
    if (this.currentTest && this.currentTest.state === 'failed') printLog(`"${this.currentTest.title}" failed`);
  });

  after(async function () {
    this.timeout(30000);
    if (nr) await nr.cleanup();
  });

  it('ships the simulator apart from the runtime, and each icon once', function () {
    const files = nr.packedFiles;
    assert.ok(files.includes('dist/sim/index.js'), 'the simulator has its own entry, dist/sim/index.js');
    const libFiles = files.filter((f) => f.startsWith('dist/lib/'));
    assert.ok(libFiles.length > 0, 'the runtime ships in dist/lib');
    for (const f of libFiles) assert.doesNotMatch(f, /(^|\/)(sim|mock)[^/]*$/i, `no simulator or mock code in dist/lib: ${f}`);
    for (const f of libFiles.filter((f) => f.endsWith('.js'))) {
      const text = fs.readFileSync(path.join(nr.userDir, 'node_modules', MODULE, f), 'utf8');
      assert.doesNotMatch(text, /require\("(\.\.\/)+sim\//, `${f} does not load the simulator`);
    }
    const icons = files.filter((f) => f.endsWith('.svg') || f.endsWith('.png'));
    assert.ok(icons.length > 0, 'the icons ship');
    const byName = new Map();
    for (const f of icons) byName.set(path.basename(f), [...(byName.get(path.basename(f)) ?? []), f]);
    for (const [name, places] of byName) assert.equal(places.length, 1, `icon ${name} ships once, not in ${places.join(', ')}`);
  });

  it('runs `npx detection-bridge-sim --help` from the installed package', async function () {
    this.timeout(60000);
    const { stdout } = await run('npx', ['--no-install', 'detection-bridge-sim', '--help'], { cwd: nr.userDir });
    assert.match(stdout, /detection-bridge-sim/);
    assert.match(stdout, /\bsend\b/);
    assert.match(stdout, /\bserve\b/);
  });

  it('loads the module: GET /nodes lists every node set without error, and they run', async function () {
    const r = await request(`${url}/nodes`, { method: 'GET', headers: { accept: 'application/json' } });
    assert.equal(r.status, 200);
    for (const type of TYPES) {
      const setId = `${MODULE}/${type}`;
      const set = r.json.find((s) => s.id === setId);
      assert.ok(set, `GET /nodes lists ${setId}; sets: ${r.json.map((s) => s.id).join(', ')}`);
      assert.equal(set.err, undefined, `node set error: ${set.err}`);
      assert.equal(set.enabled, true);
      assert.equal(set.module, MODULE);
      assert.deepEqual(set.types, [type]);
      assert.equal(set.version, require(path.join(ROOT, 'package.json')).version);
    }
    // The admin API never shows the registry's `loaded` flag (it deletes it);
    // the set's own entry has no error, and the runtime knows the type: a flow
    // using it started without waiting for missing types.
    const one = await request(`${url}/nodes/${SET_ID}`, { method: 'GET', headers: { accept: 'application/json' } });
    assert.equal(one.status, 200, one.text);
    assert.equal(one.json.id, SET_ID);
    assert.equal(one.json.err, undefined, `node set error: ${one.json.err}`);
    const text = nr.log.join('');
    assert.doesNotMatch(text, /missing (node )?types/i);
    assert.match(text, /Started flows/);
  });

  for (const type of TYPES) {
    it(`serves the ${type} editor: every i18n key of its dialog resolves, help and icon are served`, async function () {
      const r = await request(`${url}/nodes`, { method: 'GET', headers: { accept: 'text/html' } });
      assert.equal(r.status, 200);
      assert.match(r.headers['content-type'], /text\/html/);
      const html = r.text;
      assert.ok(html.includes(`data-template-name="${type}"`), 'the edit dialog template is served');
      assert.ok(html.includes(`data-help-name="${type}"`), 'the help text is served');
      // registered through the package's DetectionBridgeEditor.define (nodes/shared/editor-helpers.ts)
      const registration = `DetectionBridgeEditor.define('${type}'`;
      assert.ok(html.includes(registration), 'the editor registration is served');
      // A flow node's help has Inputs, Outputs and Details; a configuration node's (as core's
      // own configuration nodes) only Details: it has no ports.
      const ownHelp = html.slice(html.indexOf(`data-help-name="${type}"`));
      const helpText = ownHelp.slice(0, ownHelp.indexOf('</script>'));
      const isConfig = /category:\s*'config'/.test(html.slice(html.indexOf(registration)).slice(0, 400));
      for (const section of ['Inputs', 'Outputs', 'Details']) {
        if (isConfig && section !== 'Details')
          assert.doesNotMatch(helpText, new RegExp(`<h3>${section}</h3>`), `configuration node help has no ${section}`);
        else assert.match(helpText, new RegExp(`<h3>${section}</h3>`), `help has ${section}`);
      }

      // our part of the concatenated editor html: the installed package's own file
      const ownHtml = fs.readFileSync(path.join(nr.userDir, 'node_modules', MODULE, 'dist', 'nodes', type, `${type}.html`), 'utf8');
      const templateStart = ownHtml.indexOf(`data-template-name="${type}"`);
      assert.ok(html.includes(ownHtml.slice(templateStart, templateStart + 200)), 'the served template is the packaged one');
      const keys = i18nKeysOf(ownHtml);
      assert.ok(keys.length >= 5, `found ${keys.length} i18n keys`);

      const setId = `${MODULE}/${type}`;
      const c = await request(`${url}/locales/${setId}?lng=en-US`, { method: 'GET', headers: { accept: 'application/json' } });
      assert.equal(c.status, 200);
      const catalog = c.json;
      assert.ok(catalog && catalog[type], `catalog for ${setId}: ${c.text.slice(0, 200)}`);
      assert.equal(typeof catalog[type].paletteLabel, 'string', 'a palette label');
      const unresolved = keys.filter((key) => {
        const v = lookup(catalog, key);
        return typeof v !== 'string' || v.trim() === '' || v === key;
      });
      assert.deepEqual(unresolved, [], 'i18n keys without a translation');
      assert.ok(
        keys.every((k) => k.startsWith(`${type}.`)),
        `keys are namespaced ${type}.…: ${keys.join(', ')}`,
      );

      // The icon the node declares (config nodes have none) is served.
      const declared = /\bicon:\s*'([^']+)'/.exec(ownHtml);
      if (/category:\s*'config'/.test(ownHtml)) assert.equal(declared, null);
      else {
        assert.ok(declared, `${type} declares an icon`);
        const icon = await request(`${url}/icons/${MODULE}/${declared[1]}`, { method: 'GET' });
        assert.equal(icon.status, 200);
        assert.match(icon.headers['content-type'], /^image\/svg\+xml/);
        assert.match(icon.text, /<svg[\s>]/);
      }
    });
  }

  it('receives a face and a plate event and emits them on output 1', async function () {
    const face = fullFace();
    const lpr = fullLpr();
    const a = await postJson(nodeUrl, face);
    assert.equal(a.status, 200, a.text);
    assert.deepEqual(a.json, { status: 'accepted', messageId: 'msg-face-0001' });
    const b = await postJson(nodeUrl, lpr);
    assert.equal(b.status, 200, b.text);
    assert.deepEqual(b.json, { status: 'accepted', messageId: 'msg-lpr-0001' });

    const faceLine = await probeLine((l) => l.messageId === 'msg-face-0001', 'the face event on output 1');
    assert.equal(faceLine.output, 1);
    assert.equal(faceLine.kind, 'face');
    assert.equal(faceLine.topic, 'WebHookFaceRecPayload');
    assert.equal(faceLine.payloadMessageId, 'msg-face-0001');
    assert.equal(faceLine.resent, false);
    assert.ok(!Number.isNaN(Date.parse(faceLine.receivedAt)), `receivedAt ${faceLine.receivedAt}`);
    assert.equal(faceLine.hasReqHeaders, true);
    assert.equal(faceLine.contentType, 'application/json');
    assert.equal(faceLine.errorsCount, null);
    assert.deepEqual(faceLine.payloadKeys.sort(), Object.keys(face).sort());

    const lprLine = await probeLine((l) => l.messageId === 'msg-lpr-0001', 'the plate event on output 1');
    assert.equal(lprLine.output, 1);
    assert.equal(lprLine.kind, 'lpr');
    assert.equal(lprLine.topic, 'WebHookLprPayload');
    assert.equal(lprLine.resent, false);
    assert.deepEqual(lprLine.payloadKeys.sort(), Object.keys(lpr).sort());
  });

  it("takes a 6 MiB plate event despite the admin app's 5 MB JSON parser on the same server", async function () {
    const big = bigLpr(6 * 1024 * 1024, 'msg-lpr-e2e-6mib');
    const body = JSON.stringify(big);
    assert.ok(Buffer.byteLength(body) > 6 * 1000 * 1000, `body is ${Buffer.byteLength(body)} bytes`);
    const r = await request(nodeUrl, { headers: { 'content-type': 'application/json' }, body });
    assert.equal(r.status, 200, r.text.slice(0, 500));
    assert.deepEqual(r.json, { status: 'accepted', messageId: 'msg-lpr-e2e-6mib' });
    const line = await probeLine((l) => l.messageId === 'msg-lpr-e2e-6mib', 'the 6 MiB event on output 1');
    assert.equal(line.output, 1);
    assert.equal(line.kind, 'lpr');
    const sent = big.payload.detectionImages.reduce((n, i) => n + i.image.length, 0);
    assert.equal(line.imageChars, sent, 'the images arrived whole');
  });

  it('answers 422 to a schema-invalid event and sends it to output 2', async function () {
    const bad = minimalFace();
    delete bad.payload.personInfo;
    bad.payload.messageId = 'msg-face-e2e-invalid';
    const r = await postJson(nodeUrl, bad);
    assert.equal(r.status, 422, r.text);
    assert.match(r.headers['content-type'], /^application\/problem\+json/);
    assert.equal(r.json.status, 422);
    assert.ok(Array.isArray(r.json.errors) && r.json.errors.length > 0, `errors: ${r.text}`);

    const line = await probeLine((l) => l.output === 2, 'the invalid event on output 2');
    assert.equal(line.topic, 'WebHookFaceRecPayload');
    assert.equal(line.errorsCount, r.json.errors.length);
    assert.equal(line.kind, undefined);
    assert.equal(line.hasReqHeaders, true);
    assert.ok(!probeLines().some((l) => l.output === 1 && l.payloadMessageId === 'msg-face-e2e-invalid'), 'not on output 1');
  });

  it('answers 405 to GET on the endpoint', async function () {
    const r = await request(nodeUrl, { method: 'GET' });
    assert.equal(r.status, 405);
    assert.equal(r.headers.allow, 'POST');
    assert.match(r.headers['content-type'], /^application\/problem\+json/);
  });

  it('saw no error in the Node-RED log', function () {
    assert.deepEqual(nr.errorLines(), []);
  });
});
