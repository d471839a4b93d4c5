'use strict';
/**
 * Enrollment without Node-RED: lib/bridge (enroll-schemas.ts: what a flow hands in becomes the
 * documented body; enroll-api.ts: paths and paging; client.ts over real HTTP), the
 * simulator's enrollment endpoints (sim/enroll-server.ts) as any HTTP client
 * sees them, deliveries that draw from what is enrolled, and `serve` on the
 * command line (the JWT printed, --send-to). Runs against dist/.
 */
const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const http = require('node:http');
const path = require('node:path');
const { ROOT, request, until } = require('../../support');

const dist = path.join(ROOT, 'dist');
const schemas = require(path.join(dist, 'lib', 'bridge', 'enroll-schemas'));
const api = require(path.join(dist, 'lib', 'bridge', 'enroll-api'));
const { EventsBridgeClient, parseBridgeBase, bridgeReason } = require(path.join(dist, 'lib', 'bridge', 'client'));
const { renderMessage } = require(path.join(dist, 'lib', 'core', 'messages'));
const sim = require(path.join(dist, 'sim'));

const text = (problem) => renderMessage(problem);

/** A local server answering every request with `answer(req, body)` → [status, value, contentType]. */
async function fakeBridge(answer) {
  const seen = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      seen.push({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const [status, value, type = 'application/json'] = await answer(req);
      inFlight--;
      res.writeHead(status, { 'content-type': type });
      res.end(typeof value === 'string' ? value : JSON.stringify(value));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    seen,
    get maxInFlight() {
      return maxInFlight;
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('bridge/client: enrollment (with enroll-api, enroll-schemas) against the simulator', function () {
  this.timeout(20000);

  describe('what a flow hands in becomes the documented body', () => {
    it('a plate: tags as text, array or items; fields as an object or the list; blanks left out', () => {
      const forms = [
        { tags: 'VIP, Guest ,', additionalFields: { TenantID: 'T-1', Booking: 1001, Gone: null } },
        {
          tags: ['VIP', 'Guest'],
          additionalFields: [
            { fieldName: 'TenantID', fieldValue: 'T-1' },
            { fieldName: 'Booking', fieldValue: 1001 },
          ],
        },
        { tags: [{ tagName: 'VIP' }, { tagName: 'Guest' }], additionalFields: { TenantID: 'T-1', Booking: '1001' } },
      ];
      for (const form of forms) {
        const result = schemas.plateBody({ plate: ' ABC 123 ', monitorReason: '', ...form });
        assert.deepEqual(
          result,
          {
            ok: true,
            body: {
              plate: 'ABC 123',
              tags: [{ tagName: 'VIP' }, { tagName: 'Guest' }],
              additionalFields: [
                { fieldName: 'TenantID', fieldValue: 'T-1' },
                { fieldName: 'Booking', fieldValue: '1001' },
              ],
            },
          },
          JSON.stringify(form),
        );
        assert.ok(schemas.PlateEnrollment.safeParse(result.body).success);
      }
      assert.deepEqual(schemas.plateBody({ plate: 4711 }), { ok: true, body: { plate: '4711' } }, 'a number read from a CSV file');
    });

    it('a plate: every problem is named', () => {
      const result = schemas.plateBody({
        plate: '  ',
        monitorReason: {},
        tags: [{ name: 'VIP' }],
        additionalFields: [{ fieldName: 'A', fieldValue: { x: 1 } }],
      });
      assert.equal(result.ok, false);
      assert.deepEqual(result.problems.map(text), [
        'the plate to enroll is missing (empty text)',
        'monitorReason must be text, got an object',
        'tag 1 has no name',
        'additional field 1 needs a fieldName and a fieldValue that is text, a number or true/false',
      ]);
      assert.match(
        text(schemas.plateBody({ plate: 'A', additionalFields: 'TenantID=1' }).problems[0]),
        /must be an object such as \{"TenantID": "T-1"\}/,
      );
    });

    it('a face: the photo from a Buffer or base64 (a data: prefix removed), names trimmed', () => {
      const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xd9]);
      const b64 = jpeg.toString('base64');
      for (const photo of [jpeg, new Uint8Array(jpeg), b64, ` data:image/jpeg;base64,${b64} `]) {
        assert.deepEqual(schemas.faceBody({ photo, firstName: ' Ann ', lastName: 'Lee', tags: 'VIP' }), {
          ok: true,
          body: { photo: b64, firstName: 'Ann', lastName: 'Lee', tags: [{ tagName: 'VIP' }] },
        });
      }
      const bad = schemas.faceBody({ photo: 'not base64!', firstName: 3 });
      assert.deepEqual(bad.problems.map(text), ['the photo is not valid base64 text (at position 3): give a Buffer or base64 text']);
      assert.deepEqual(schemas.faceBody({ photo: Buffer.alloc(0) }).problems.map(text), [
        'the photo is missing (a Buffer of 0 bytes): give a JPEG as a Buffer or as base64 text',
      ]);
    });

    it('an externalId: text or a number, kept exactly; blank, objects, "." and ".." refused', () => {
      assert.deepEqual(schemas.readExternalId(' Guest-42 '), { ok: true, value: ' Guest-42 ' }, 'case and spaces kept');
      assert.deepEqual(schemas.readExternalId(42), { ok: true, value: '42' });
      for (const bad of [undefined, null, '', '   ', {}, [], NaN]) assert.equal(schemas.readExternalId(bad).ok, false, String(bad));
      assert.equal(text(schemas.readExternalId('..').problem), 'the externalId ".." cannot be used: a URL path reads it as a folder');
    });
  });

  describe('paths and paging', () => {
    it('the documented paths by default; paths given are checked', () => {
      const ok = api.resolveEnrollmentApi({});
      assert.deepEqual(ok.api.paths, {
        lpr: { monitor: '/api/v1/lpr/monitor/{externalId}', list: '/api/v1/lpr/monitored' },
        face: { monitor: '/api/v1/faces/monitor/{externalId}', list: '/api/v1/faces/monitored' },
      });
      assert.equal(ok.api.paging, undefined, 'no paging: the bridge documents none');
      assert.equal(ok.api.photoField, 'faceImage');
      assert.equal(api.monitorPath(ok.api, 'lpr', 'a/b c'), '/api/v1/lpr/monitor/a%2Fb%20c', 'one path segment');
      const bad = api.resolveEnrollmentApi({
        paths: { lpr: { monitor: '/x/{id}', list: 'https://elsewhere/list' }, face: { monitor: '/f/{externalId}/{externalId}', list: '/f?all' } },
        photoField: 'photo field',
      });
      assert.deepEqual(
        bad.problems.map((p) => [p.option, text(p)]),
        [
          ['lpr.monitor', '"/x/{id}" must contain {externalId} once, where the externalId goes, and no other placeholder'],
          ['lpr.list', 'give a path relative to the bridge URL (/api/v1/...), not a full URL'],
          ['face.monitor', '"/f/{externalId}/{externalId}" must contain {externalId} once, where the externalId goes, and no other placeholder'],
          ['face.list', 'it must not contain spaces, a query (?) or a fragment (#)'],
          ['photoField', 'the photo property must be a name such as faceImage, got "photo field"'],
        ],
      );
    });

    it('a paging query with placeholders, filled per page', () => {
      const { api: a } = api.resolveEnrollmentApi({ pageQuery: '?skip={offset}&take={size}&p={page}&p0={page0}', pageSize: '50' });
      assert.deepEqual(api.pageQuery(a.paging, 1), [
        ['skip', '0'],
        ['take', '50'],
        ['p', '1'],
        ['p0', '0'],
      ]);
      assert.deepEqual(api.pageQuery(a.paging, 3), [
        ['skip', '100'],
        ['take', '50'],
        ['p', '3'],
        ['p0', '2'],
      ]);
      const cases = [
        [{ pageQuery: 'pageSize={size}' }, 'it must contain {page}, {page0} or {offset}: without, every page would be the first'],
        [{ pageQuery: 'page={n}' }, '{n} is not a paging placeholder: use {page}, {page0}, {offset} or {size}'],
        [{ pageQuery: 'page' }, 'write it as query parameters, such as page={page}&pageSize={size}'],
        [{ pageQuery: 'page={page}', pageSize: 0 }, 'the page size must be a whole number from 1 to 100000, got 0'],
      ];
      for (const [options, message] of cases)
        assert.deepEqual(api.resolveEnrollmentApi(options).problems.map(text), [message], JSON.stringify(options));
    });
  });

  describe('the client', () => {
    let bridge;
    const clients = [];
    const client = (options) => {
      const c = new EventsBridgeClient({ token: 'the.jwt.token', ...options });
      clients.push(c);
      return c;
    };
    afterEach(async () => {
      for (const c of clients.splice(0)) await c.close();
      if (bridge) await bridge.close();
      bridge = undefined;
    });

    it('keeps the base path, drops a pasted /api/v1/…, refuses user info and other schemes', () => {
      assert.deepEqual(parseBridgeBase('https://tenant-host/eventsbridge/api/v1/lpr/monitored'), {
        origin: 'https://tenant-host',
        prefix: '/eventsbridge',
        display: 'https://tenant-host/eventsbridge',
      });
      assert.equal(parseBridgeBase(' https://10.0.0.123:5022/ ').display, 'https://10.0.0.123:5022');
      assert.throws(
        () => parseBridgeBase('https://u:p@host'),
        (e) => e.code === 'ERR_ENROLL_URL' && /calls carry the token/.test(e.message) && !e.message.includes('u:p'),
      );
      assert.throws(
        () => parseBridgeBase('ftp://host'),
        (e) => e.code === 'ERR_ENROLL_URL',
      );
      assert.throws(
        () => new EventsBridgeClient({ baseUrl: 'https://h', api: { pageQuery: 'x=1' } }),
        (e) => e.code === 'ERR_ENROLL_PATH',
      );
    });

    it('reads the reason of a failed answer from the usual places', () => {
      assert.equal(bridgeReason({ reason: 'duplicate plate', title: 'Error' }), 'duplicate plate');
      assert.equal(bridgeReason({ title: 'Internal Server Error', detail: 'photo has two faces' }), 'photo has two faces');
      assert.equal(bridgeReason({ message: 'blurry photo' }), 'blurry photo');
      assert.equal(bridgeReason('  plain text reason '), 'plain text reason');
      assert.equal(bridgeReason({}), undefined);
      assert.equal(bridgeReason([1]), undefined);
    });

    it('sends the JWT as a bearer token and JSON bodies; never puts the token in an error', async () => {
      bridge = await fakeBridge((req) => (req.method === 'PUT' ? [500, `refused token the.jwt.token`, 'text/plain'] : [200, {}]));
      const c = client({ baseUrl: `${bridge.url}/eventsbridge` });
      await assert.rejects(c.enroll('lpr', 'x', { plate: 'A' }), (err) => {
        assert.equal(err.code, 'ERR_ENROLL_STATUS');
        assert.equal(err.status, 500);
        assert.ok(!err.message.includes('the.jwt.token'), err.message);
        assert.match(err.message, /answered 500 \(Internal Server Error\): refused token \*\*\*/);
        return true;
      });
      const [put] = bridge.seen;
      assert.equal(put.url, '/eventsbridge/api/v1/lpr/monitor/x');
      assert.equal(put.headers.authorization, 'Bearer the.jwt.token');
      assert.equal(put.headers['content-type'], 'application/json');
      assert.deepEqual(JSON.parse(put.body), { plate: 'A' });
      await c.unenroll('face', 'y');
      assert.equal(bridge.seen[1].method, 'DELETE');
      assert.equal(bridge.seen[1].body, '', 'no body on DELETE');
    });

    it('puts the face photo under the photo property the bridge takes', async () => {
      bridge = await fakeBridge(() => [200, {}]);
      await client({ baseUrl: bridge.url, api: { photoField: 'image' } }).enroll('face', 'p', { photo: '/9j/', firstName: 'Ann' });
      assert.deepEqual(JSON.parse(bridge.seen[0].body), { image: '/9j/', firstName: 'Ann' });
    });

    it('runs at most maxConcurrent calls at once; the rest wait their turn, none times out waiting', async () => {
      bridge = await fakeBridge(() => new Promise((resolve) => setTimeout(() => resolve([200, { enrolled: true }]), 150)));
      const c = client({ baseUrl: bridge.url, maxConcurrent: 2, timeoutMs: 400 });
      const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => c.check('lpr', `id-${i}`)));
      assert.equal(answers.length, 8);
      assert.ok(answers.every((a) => a.enrolled === true));
      assert.equal(bridge.maxInFlight, 2);
    });

    it('refuses answers that are not what the documentation shows', async () => {
      const bodies = {
        '/api/v1/lpr/monitor/a': [200, { isEnrolled: true }],
        '/api/v1/lpr/monitored': [200, { items: [{ externalId: 'a' }, { id: 'b' }] }],
        '/api/v1/faces/monitored': [200, 'a, b', 'text/plain'],
      };
      bridge = await fakeBridge((req) => bodies[req.url.split('?')[0]] ?? [404, {}]);
      const c = client({ baseUrl: bridge.url });
      await assert.rejects(
        c.check('lpr', 'a'),
        (e) =>
          e.code === 'ERR_ENROLL_ANSWER' && /answered 200, but the answer has no "enrolled": true or false \(\{"isEnrolled":true\}\)/.test(e.message),
      );
      const pages = async (kind) => {
        const got = [];
        for await (const page of c.list(kind)) got.push(page);
        return got;
      };
      await assert.rejects(
        pages('lpr'),
        (e) => e.code === 'ERR_ENROLL_ANSWER' && /item 2 of the list has no "externalId" \(\{"id":"b"\}\)/.test(e.message),
      );
      await assert.rejects(pages('face'), (e) => /the answer is not a list of monitored items, a JSON array \(a, b\)/.test(e.message));
      bodies['/api/v1/lpr/monitored'] = [200, { data: [{ externalId: 'a', enrolled: true, expected: false }], total: 1 }];
      assert.deepEqual((await pages('lpr'))[0].items, [{ externalId: 'a', enrolled: true, expected: false }], 'a list wrapped in data');
    });

    it('without a token, nothing is sent', async () => {
      bridge = await fakeBridge(() => [200, {}]);
      const c = new EventsBridgeClient({ baseUrl: bridge.url });
      clients.push(c);
      assert.equal(c.hasToken, false);
      await assert.rejects(c.check('lpr', 'a'), (e) => e.code === 'ERR_ENROLL_CREDENTIALS');
      assert.equal(bridge.seen.length, 0);
    });

    it('close() fails the calls waiting their turn', async () => {
      bridge = await fakeBridge(() => new Promise((resolve) => setTimeout(() => resolve([200, { enrolled: false }]), 300)));
      const c = client({ baseUrl: bridge.url, maxConcurrent: 1 });
      const first = c.check('lpr', 'a').catch((e) => e);
      const waiting = c.check('lpr', 'b').catch((e) => e);
      await until(() => bridge.seen.length === 1, 2000, 'the first call under way');
      assert.equal(c.queued, 1);
      await c.close();
      assert.equal((await waiting).code, 'ERR_ENROLL_CLOSED');
      assert.ok((await first) instanceof Error, 'the call under way is cut short');
      assert.equal(bridge.seen.length, 1);
    });
  });

  describe('the simulated enrollment endpoints', () => {
    let store;
    let server;
    const url = (p) => `${server.url}${p}`;
    const auth = () => ({ authorization: `Bearer ${store.token}` });
    const put = (p, value, headers = auth()) =>
      request(url(p), { method: 'PUT', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(value) });

    beforeEach(async () => {
      store = new sim.EnrollmentStore();
      server = await sim.startSampleServer({ port: 0, enrollments: store });
    });
    afterEach(() => server.close());

    it('answer 401 with a reason without the JWT, or with another one', async () => {
      for (const headers of [{}, { authorization: `Bearer ${sim.createSimJwt()}` }, { authorization: `Basic ${store.token}` }]) {
        const res = await request(url('/api/v1/lpr/monitored'), { method: 'GET', headers });
        assert.equal(res.status, 401);
        assert.match(res.headers['content-type'], /^application\/problem\+json/);
        assert.match(res.json.reason, /JWT|token is not valid/);
      }
      assert.equal(store.requests.at(-1).status, 401);
    });

    it('enroll, check, list and unenroll plates and faces; 500 with a reason for what cannot be done', async () => {
      assert.equal((await put('/api/v1/lpr/monitor/g-1', { plate: 'GST1', additionalFields: [{ fieldName: 'T', fieldValue: '1' }] })).status, 200);
      assert.equal((await put('/api/v1/faces/monitor/f-1', { faceImage: '/9j/4A==', firstName: 'Ann' })).status, 200);
      const check = await request(url('/api/v1/lpr/monitor/g-1'), { method: 'GET', headers: auth() });
      assert.deepEqual(check.json, { enrolled: true });
      assert.deepEqual((await request(url('/api/v1/faces/monitor/nobody'), { method: 'GET', headers: auth() })).json, { enrolled: false });
      assert.deepEqual((await request(url('/api/v1/faces/monitored'), { method: 'GET', headers: auth() })).json, [
        { externalId: 'f-1', enrolled: true, expected: true },
      ]);
      const bad = [
        [await put('/api/v1/lpr/monitor/x', { plates: 'A' }), /^not a plate enrollment: plate: /],
        [await put('/api/v1/faces/monitor/x', { photo: '/9j/' }), /^not a face enrollment: faceImage is required/],
        [await put('/api/v1/faces/monitor/x', { faceImage: 'not base64!' }), /^not a face enrollment: faceImage: expected plain base64/],
        [await request(url('/api/v1/lpr/monitor/x'), { method: 'PUT', headers: auth(), body: '{nope' }), /^the body is not JSON$/],
        [await request(url('/api/v1/lpr/monitor/x'), { method: 'DELETE', headers: auth() }), /^x is not enrolled$/],
      ];
      for (const [res, reason] of bad) {
        assert.equal(res.status, 500, res.text);
        assert.match(res.json.reason, reason);
      }
      assert.equal((await request(url('/api/v1/lpr/monitor/g-1'), { method: 'DELETE', headers: auth() })).status, 200);
      assert.equal(store.count('lpr'), 0);
      assert.equal((await request(url('/api/v1/lpr/monitored'), { method: 'POST', headers: auth() })).status, 405);
    });

    it("page the list with page and pageSize (the simulator's own), else answer it whole", async () => {
      for (let i = 1; i <= 5; i++) store.put({ kind: 'lpr', externalId: `p-${i}`, plate: `P${i}`, tags: [], additionalFields: [] });
      const ids = async (query) =>
        (await request(url(`/api/v1/lpr/monitored${query}`), { method: 'GET', headers: auth() })).json.map((i) => i.externalId);
      assert.deepEqual(await ids(''), ['p-1', 'p-2', 'p-3', 'p-4', 'p-5']);
      assert.deepEqual(await ids('?page=2&pageSize=2'), ['p-3', 'p-4']);
      assert.deepEqual(await ids('?page=4&pageSize=2'), []);
      assert.deepEqual(await ids('?page=2'), ['p-1', 'p-2', 'p-3', 'p-4', 'p-5'], 'without a page size: whole');
    });
  });

  describe('deliveries drawn from what is enrolled', () => {
    let receiver;
    afterEach(() => receiver && receiver.close());

    it('events of enrolled plates and faces carry the externalId, the fields, the plate, prefixed tags, the reason and photo', async () => {
      const events = [];
      receiver = await fakeBridge(async () => [200, {}]);
      const store = new sim.EnrollmentStore();
      store.put({
        kind: 'lpr',
        externalId: 'g-1',
        plate: 'XYZ987',
        tags: ['Guest'],
        additionalFields: [{ fieldName: 'TenantID', fieldValue: 'T-1' }],
      });
      store.put({
        kind: 'face',
        externalId: 'f-1',
        photo: '/9j/4A==',
        firstName: 'Ann',
        lastName: 'Lee',
        monitorReason: 'host',
        tags: ['VIP'],
        additionalFields: [],
      });
      const summary = await sim.runDelivery({ url: `${receiver.url}/in`, count: 8, rate: 0, mix: 0.5, enrollments: store, enrolledShare: 0.5 });
      assert.equal(summary.acknowledged, 8);
      for (const seen of receiver.seen) events.push(JSON.parse(seen.body));
      const plates = events.filter((e) => e.publishType === 'WebHookLprPayload');
      const faces = events.filter((e) => e.publishType === 'WebHookFaceRecPayload');
      assert.equal(plates.filter((e) => e.externalId === 'g-1').length, 2, 'half of the four plate events');
      for (const e of plates) {
        const info = e.payload.lprPlateInfo;
        if (e.externalId === 'g-1') {
          assert.deepEqual(e.fields, [{ fieldName: 'TenantID', fieldValue: 'T-1' }]);
          assert.equal(info.plate, 'XYZ987');
          assert.deepEqual(info.tags, [{ tagName: 'partner-Guest', expires: null }]);
        } else {
          assert.equal(e.externalId, null);
          assert.equal(e.fields, null);
          assert.notEqual(info.plate, 'XYZ987', 'the sample plate is enrolled: another one is shown');
        }
      }
      const enrolledFace = faces.find((e) => e.externalId === 'f-1');
      assert.ok(enrolledFace);
      const person = enrolledFace.payload.personInfo;
      assert.deepEqual([person.firstName, person.middleName, person.lastName], ['Ann', null, 'Lee']);
      assert.deepEqual(person.notes, [{ noteTitle: 'Monitor reason', noteBody: 'host' }]);
      assert.deepEqual(enrolledFace.payload.defaultPhoto, { image: '/9j/4A==' });
      assert.equal(enrolledFace.fields, null, 'no additional fields given: null');
      assert.ok(faces.filter((e) => e.externalId === null).every((e) => e.payload.personInfo.faceId !== person.faceId));
    });

    it('nothing enrolled: every event has externalId null; share 0: none drawn', async () => {
      receiver = await fakeBridge(async () => [200, {}]);
      const store = new sim.EnrollmentStore();
      await sim.runDelivery({ url: `${receiver.url}/in`, count: 4, rate: 0, enrollments: store });
      store.put({ kind: 'lpr', externalId: 'g-1', plate: 'A1', tags: [], additionalFields: [] });
      await sim.runDelivery({ url: `${receiver.url}/in`, count: 4, rate: 0, mix: 1, enrollments: store, enrolledShare: 0 });
      assert.ok(receiver.seen.every((s) => JSON.parse(s.body).externalId === null));
      assert.throws(
        () => sim.startDelivery({ url: receiver.url, enrollments: store, enrolledShare: 2 }),
        (e) => e.option === 'enrolledShare',
      );
    });
  });

  describe('serve on the command line', () => {
    const BIN = path.join(dist, 'bin', 'detection-bridge-sim.js');
    let receiver;
    afterEach(() => receiver && receiver.close());

    /** Runs the bin; `whileUp(stdout)` runs once it printed "Ctrl-C stops.", then SIGINT stops it. */
    function serve(args, whileUp = async () => {}) {
      return new Promise((resolve, reject) => {
        const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--quiet', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        let started = false;
        let failure;
        const killer = setTimeout(() => child.kill('SIGKILL'), 15000);
        child.stdout.on('data', (d) => {
          stdout += d;
          if (started || !stdout.includes('Ctrl-C stops.')) return;
          started = true;
          Promise.resolve(whileUp(stdout))
            .catch((err) => (failure = err))
            .finally(() => child.kill('SIGINT'));
        });
        child.stderr.on('data', (d) => (stderr += d));
        child.on('error', reject);
        child.on('close', (code) => {
          clearTimeout(killer);
          if (failure) reject(failure);
          else resolve({ code, stdout, stderr });
        });
      });
    }

    it('prints the enrollment endpoints and a JWT, which the endpoints take (--jwt fixes it)', async () => {
      let status;
      const res = await serve(['--jwt', 'a.b.c'], async (out) => {
        const base = /sample endpoints at (\S+)/.exec(out)[1];
        status = (await request(`${base}/api/v1/lpr/monitor/x`, { method: 'GET', headers: { authorization: 'Bearer a.b.c' } })).json;
      });
      assert.equal(res.code, 0, res.stderr);
      assert.match(res.stdout, /PUT, DELETE, GET http:\/\/127\.0\.0\.1:\d+\/api\/v1\/lpr\/monitor\/\{externalId\}/);
      assert.match(res.stdout, /\n {2}JWT: a\.b\.c\n/);
      assert.deepEqual(status, { enrolled: false });
      const fresh = await serve([]);
      assert.match(fresh.stdout, /JWT: [\w-]+\.[\w-]+\.[\w-]+\n/, 'a new JWT when none is given');
    });

    it('--send-to delivers events, those of enrolled plates with their externalId, and prints the summary at the end', async () => {
      receiver = await fakeBridge(async () => [200, {}]);
      const res = await serve(
        ['--send-to', `${receiver.url}/in`, '--rate', '50', '--mix', '1', '--enrolled-share', '1', '--jwt', 'x.y.z'],
        async (out) => {
          const base = /sample endpoints at (\S+)/.exec(out)[1];
          const enrolled = await request(`${base}/api/v1/lpr/monitor/guest-1`, {
            method: 'PUT',
            headers: { authorization: 'Bearer x.y.z', 'content-type': 'application/json' },
            body: JSON.stringify({ plate: 'GST1', additionalFields: [{ fieldName: 'TenantID', fieldValue: 'T-9' }] }),
          });
          assert.equal(enrolled.status, 200);
          await until(() => receiver.seen.some((s) => JSON.parse(s.body).externalId === 'guest-1'), 10000, 'an event of the enrolled plate');
        },
      );
      assert.equal(res.code, 0, res.stderr);
      assert.match(res.stdout, /delivering to http:\/\/127\.0\.0\.1:\d+\/in at 50\/s/);
      assert.match(res.stdout, /sent \(events\)/, 'the summary');
      const mine = receiver.seen.map((s) => JSON.parse(s.body)).filter((e) => e.externalId === 'guest-1');
      assert.ok(mine.every((e) => e.payload.lprPlateInfo.plate === 'GST1' && e.fields[0].fieldValue === 'T-9'));
    });

    it('refuses delivery options without --send-to, and names --send-to in its messages', async () => {
      const run = (args) =>
        new Promise((resolve) => {
          const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
          let stderr = '';
          child.stderr.on('data', (d) => (stderr += d));
          child.on('close', (code) => resolve({ code, stderr }));
        });
      const cases = [
        [['--rate', '5'], /--rate is an option of the delivery: give --send-to URL with it/],
        [['--enrolled-share', '0.5'], /--enrolled-share is an option of the delivery/],
        [['--send-to', 'nope'], /--send-to: "nope" is not an absolute URL/],
        [['--send-to', 'http://127.0.0.1:9/x', '--enrolled-share', '3'], /--enrolled-share: must be at most 1/],
      ];
      for (const [args, message] of cases) {
        const res = await run(args);
        assert.equal(res.code, 2, `${args.join(' ')}: ${res.stderr}`);
        assert.match(res.stderr, message);
      }
    });
  });
});
