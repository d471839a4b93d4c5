'use strict';
/**
 * OpenAPI check: the cost of checking a platform request against the
 * 688-operation test document (test/support/openapi-document.js, NOT the
 * platform's) before sending it. The same POS batches go to the mock core
 * through one PlatformClient, `window` in flight, in alternating rounds sent as they
 * are and each checked first (OperationIndex.check: operation lookup among 688,
 * path parameters, the body against its schema, compiled once). Reported: the
 * ratio of the two times, and the check alone per request. In this process,
 * no Node-RED: what the check adds to platform-request's own work.
 */
const { performance } = require('node:perf_hooks');
const { PlatformClient } = require('../../dist/lib/platform/client');
const { openApiDocument } = require('../../dist/lib/openapi/document');
const { OperationIndex } = require('../../dist/lib/openapi/operations');
const { startMockCore } = require('../../dist/sim/mock-core');
const { generatedDocument } = require('../../test/support/openapi-document');

const tx = (i) => ({
  transactionId: `tx-${i}`,
  terminal: 'T1',
  amount: 10 + (i % 90),
  type: 'SALE',
  lines: [{ sku: `sku-${i % 7}`, quantity: 1 + (i % 3) }],
});

async function sendAll(client, index, config) {
  let next = 0;
  let failed = 0;
  const worker = async () => {
    while (next < config.requests) {
      const i = next++;
      const call = {
        method: 'POST',
        path: `/api/v2/pos/plugins/pos-${i % 4}/events/batch`,
        body: Array.from({ length: config.batch }, (_, k) => tx(i * config.batch + k)),
      };
      if (index && !index.check(call).ok) {
        failed++;
        continue;
      }
      const res = await client.request(call);
      if (res.statusCode !== 200) failed++;
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: config.window }, worker));
  return { ms: performance.now() - t0, failed };
}

async function runOpenapi(ctx) {
  const { config, log } = ctx;
  const problems = [];
  const t0 = performance.now();
  const index = new OperationIndex(await openApiDocument(generatedDocument()));
  const loadMs = performance.now() - t0;
  const core = await startMockCore({ maxRecorded: 1 });
  const client = new PlatformClient({ baseUrl: core.url, userName: 'admin', password: 'secret' });
  try {
    await sendAll(client, index, { ...config, requests: config.warmup }); // compile, sign in, open connections
    await sendAll(client, undefined, { ...config, requests: config.warmup });
    // Alternating rounds, so neither way gains from running second (warmer code, pools).
    const plain = { ms: 0, failed: 0 };
    const checked = { ms: 0, failed: 0 };
    for (let round = 0; round < config.rounds; round++) {
      for (const [into, idx] of round % 2
        ? [
            [checked, index],
            [plain, undefined],
          ]
        : [
            [plain, undefined],
            [checked, index],
          ]) {
        const r = await sendAll(client, idx, config);
        into.ms += r.ms;
        into.failed += r.failed;
      }
    }
    // The check alone, on the same calls.
    const calls = Array.from({ length: config.requests }, (_, i) => ({
      method: 'POST',
      path: `/api/v2/pos/plugins/pos-${i % 4}/events/batch`,
      body: Array.from({ length: config.batch }, (_, k) => tx(i * config.batch + k)),
    }));
    const c0 = performance.now();
    for (const call of calls) if (!index.check(call).ok) problems.push('openapi: a valid batch failed the check');
    const checkUs = ((performance.now() - c0) * 1000) / config.requests;
    if (plain.failed || checked.failed) problems.push(`openapi: ${plain.failed} unchecked and ${checked.failed} checked requests failed`);
    const result = {
      operations: index.operations.length,
      loadMs: +loadMs.toFixed(0),
      requests: config.requests * config.rounds,
      transactionsPerRequest: config.batch,
      plainMs: +plain.ms.toFixed(0),
      checkedMs: +checked.ms.toFixed(0),
      ratio: +(checked.ms / plain.ms).toFixed(3),
      checkMicrosecondsPerRequest: +checkUs.toFixed(1),
      compiledOperations: index.compiledCount,
      problems: [...new Set(problems)],
    };
    log(
      `  openapi: ${result.operations} operations loaded in ${result.loadMs} ms; ${result.requests} requests of ${result.transactionsPerRequest} transactions: ` +
        `${result.plainMs} ms unchecked, ${result.checkedMs} ms checked (ratio ${result.ratio}); the check alone ${result.checkMicrosecondsPerRequest} µs per request`,
    );
    return result;
  } finally {
    await client.close();
    await core.close();
  }
}

module.exports = { runOpenapi };
