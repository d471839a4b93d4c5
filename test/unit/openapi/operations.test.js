'use strict';
/**
 * lib/openapi/operations.ts, the index of a release's operations, over documents read by document.ts and
 * load.ts (JSON or YAML, from a file): finding, searching, checking calls, summaries for the editor.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { openApiDocument, OpenApiError } = require('../../../dist/lib/openapi/document');
const { OperationIndex } = require('../../../dist/lib/openapi/operations');
const { loadOperations } = require('../../../dist/lib/openapi/load');
const { dump: dumpYaml } = require('js-yaml');
const { namedDocument, generatedDocument, NAMED_PATH } = require('../../support/openapi-document');

const tx = (i) => ({ transactionId: `tx-${i}`, terminal: 'T1', amount: 10 + i, type: 'SALE' });

describe('lib/openapi: operations of a document, loaded and indexed', function () {
  this.timeout(30000);
  let named;
  let big;
  before(async () => {
    named = new OperationIndex(await openApiDocument(fs.readFileSync(NAMED_PATH, 'utf8')));
    big = new OperationIndex(await openApiDocument(generatedDocument()));
  });

  it('indexes every operation with its module, summary, parameters and dereferenced body schema', () => {
    assert.equal(named.release, '11.0');
    assert.deepEqual(
      named.operations.map((op) => `${op.method} ${op.path} ${op.tag} ${op.id}`),
      [
        'POST /api/v2/auth/login auth auth_login',
        'GET /api/v2/portal/installed-plugins portal portal_installedPlugins',
        'POST /api/v2/pos/plugins/{pos_id}/events/batch pos pos_eventsBatch',
      ],
    );
    const batch = named.byId('pos_eventsBatch');
    assert.deepEqual(
      batch.parameters.map((p) => [p.name, p.in, p.required]),
      [['pos_id', 'path', true]],
    );
    assert.equal(batch.body.required, true);
    // dereferenced: the item schema is the object, not a $ref
    assert.deepEqual(batch.body.schema.items.required, ['transactionId', 'terminal', 'amount', 'type']);
    assert.equal(big.operations.length, 688);
    assert.equal(new Set(big.operations.map((op) => op.tag)).size, 14);
  });

  it('finds the operation of a concrete path, literal segments before templates', () => {
    const found = named.match('post', '/api/v2/pos/plugins/pos%201/events/batch');
    assert.equal(found.operation.id, 'pos_eventsBatch');
    assert.deepEqual(found.pathParams, { pos_id: 'pos 1' });
    assert.equal(named.match('GET', '/api/v2/pos/plugins/p1/events/batch'), undefined);
    assert.equal(named.match('GET', '/api/v2/portal/installed-plugins?x=1').operation.id, 'portal_installedPlugins');
    assert.equal(big.match('GET', '/api/v2/cameras/items/7').operation.id, 'cameras_items_get');
    assert.equal(named.matchTemplate('POST', '/api/v2/pos/plugins/{posId}/events/batch').id, 'pos_eventsBatch');
  });

  it('searches path, summary, operation id and module', () => {
    assert.deepEqual(
      named.search('batch').map((op) => op.id),
      ['pos_eventsBatch'],
    );
    assert.deepEqual(
      named.search('SIGN in').map((op) => op.id),
      ['auth_login'],
    );
    const found = big.search('cameras instance delete');
    assert.ok(found.length > 0);
    assert.ok(found.every((op) => op.tag === 'cameras' && op.method === 'DELETE' && op.path.includes('{plugin_id}')));
  });

  it('passes a call that matches its schema and compiles only the operations used', () => {
    assert.deepEqual(named.check({ method: 'POST', path: '/api/v2/pos/plugins/p1/events/batch', body: [tx(1), tx(2)] }).ok, true);
    // JSON text is checked as what it says
    assert.equal(named.check({ method: 'POST', path: '/api/v2/pos/plugins/p1/events/batch', body: JSON.stringify([tx(1)]) }).ok, true);
    assert.equal(named.compiledCount, 1);
    // a call no operation describes passes unchecked
    assert.deepEqual(named.check({ method: 'GET', path: '/api/v2/other/thing' }), { ok: true });
    assert.equal(named.compiledCount, 1);
  });

  it('lists every failing path of the body, like detection in', () => {
    const body = [tx(1), { transactionId: '', terminal: 'T', amount: 'ten', type: 'GIFT', lines: [{ sku: 'a', quantity: 0 }] }];
    const result = named.check({ method: 'POST', path: '/api/v2/pos/plugins/p1/events/batch', body });
    assert.equal(result.ok, false);
    assert.equal(result.operation.id, 'pos_eventsBatch');
    assert.deepEqual(result.errors.map((e) => e.path).sort(), [
      'body[1].amount',
      'body[1].lines[0].quantity',
      'body[1].transactionId',
      'body[1].type',
    ]);
    assert.ok(result.errors.every((e) => typeof e.message === 'string' && e.message));
    const missing = named.check({ method: 'POST', path: '/api/v2/auth/login', body: { userName: 'a' } });
    assert.deepEqual(missing.errors, [{ path: 'body.password', message: "must have required property 'password'" }]);
    assert.deepEqual(named.check({ method: 'POST', path: '/api/v2/auth/login' }).errors, [{ path: 'body', message: 'is required' }]);
    assert.deepEqual(named.check({ method: 'POST', path: '/api/v2/auth/login', body: '{nope' }).errors, [{ path: 'body', message: 'is not JSON' }]);
  });

  it('checks path and query parameters, text coerced to the schema type', () => {
    assert.equal(big.check({ method: 'GET', path: '/api/v2/cameras/items', query: { limit: '50' } }).ok, true);
    assert.equal(big.check({ method: 'GET', path: '/api/v2/cameras/items?limit=20&search=x' }).ok, true);
    const bad = big.check({ method: 'GET', path: '/api/v2/cameras/items?limit=5000', query: { search: 'x' } });
    assert.deepEqual(
      bad.errors.map((e) => e.path),
      ['query.limit'],
    );
    const id = big.check({ method: 'GET', path: '/api/v2/cameras/items/abc' });
    assert.deepEqual(
      id.errors.map((e) => e.path),
      ['path.items_id'],
    );
  });

  it('refuses a file that is not JSON, not OpenAPI 3 or not valid, saying why', async () => {
    await assert.rejects(openApiDocument('{"openapi": '), (err) => err instanceof OpenApiError && err.problem === 'json');
    await assert.rejects(openApiDocument('openapi: 3.0.3\ninfo: [unclosed'), (err) => err.problem === 'yaml' && err.key === 'openapi.yaml');
    await assert.rejects(openApiDocument({ swagger: '2.0' }), (err) => err.problem === 'not-openapi' && /swagger 2\.0/.test(err.message));
    const broken = namedDocument();
    broken.paths['/api/v2/auth/login'].post.requestBody.content['application/json'].schema = { $ref: '#/components/schemas/Nope' };
    await assert.rejects(openApiDocument(broken), (err) => err.problem === 'invalid' && err.key === 'openapi.invalid');
  });

  it('reads a YAML file to the same operations as its JSON, a date-like release left a string', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-'));
    try {
      const doc = namedDocument('2026-05-01');
      fs.writeFileSync(path.join(dir, 'release.json'), JSON.stringify(doc));
      // Unquoted, as a hand-written file may have it (the dumper quotes it): a YAML 1.1 loader would make it a Date.
      const yaml = dumpYaml(doc).replace("version: '2026-05-01'", 'version: 2026-05-01');
      assert.match(yaml, /^ {2}version: 2026-05-01$/m);
      fs.writeFileSync(path.join(dir, 'release.yaml'), yaml);
      const fromJson = await loadOperations('release.json', { dir });
      const fromYaml = await loadOperations('release.yaml', { dir });
      assert.equal(fromYaml.release, '2026-05-01');
      assert.deepEqual(fromYaml.summaries(), fromJson.summaries());
      assert.deepEqual(
        fromYaml.check({ method: 'POST', path: '/api/v2/auth/login', body: {} }).errors,
        fromJson.check({ method: 'POST', path: '/api/v2/auth/login', body: {} }).errors,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('loads a file relative to a directory, and says which file is missing', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-'));
    try {
      fs.writeFileSync(path.join(dir, '11.1.json'), JSON.stringify(namedDocument('11.1')));
      assert.equal((await loadOperations('11.1.json', { dir })).release, '11.1');
      await assert.rejects(
        loadOperations('nope.json', { dir }),
        (err) => err.problem === 'file' && err.message.includes('nope.json') && /ENOENT/.test(err.message),
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('summarises operations compactly for the editor', () => {
    const batch = named.summaries().find((s) => s.id === 'pos_eventsBatch');
    assert.deepEqual(batch, {
      id: 'pos_eventsBatch',
      method: 'POST',
      path: '/api/v2/pos/plugins/{pos_id}/events/batch',
      tag: 'pos',
      summary: 'Push a batch of POS transactions into one POS instance',
      parameters: [{ name: 'pos_id', in: 'path', required: true, type: 'string' }],
      body: {
        required: true,
        type: 'array',
        // The items' top-level properties, for the dialog's short view of the body.
        fields: [
          { name: 'transactionId', type: 'string', required: true },
          { name: 'terminal', type: 'string', required: true },
          { name: 'amount', type: 'number', required: true },
          { name: 'type', type: 'string', required: true },
          { name: 'occurredAt', type: 'string', required: false },
          { name: 'lines', type: 'array', required: false },
        ],
      },
    });
  });
});
