'use strict';
/**
 * Push: N POS transactions, one per message, into platform-push (batched,
 * against the mock core) and into a core http request node (one POST per
 * transaction to the mock's batch endpoint, with a bearer token from a
 * sign-in to the mock). The transactions are made in Node-RED by a function
 * node: all at once for platform-push, `window` in flight for http request
 * (see support/flows.js). The time runs from when the function node starts
 * making them until the last answer came back (measured inside Node-RED),
 * after a warm-up run of each way. The mock core counts the requests.
 */
const { httpJson, delay } = require('../support/nodered');

async function waitForEnd(nr, timeoutMs) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const state = (await httpJson(`${nr.url}/bench/push/state`)).json;
    if (state && state.end) return state;
    if (Date.now() > until) return state;
    await delay(50);
  }
}

async function runPush(ctx) {
  const { nr, core, config, log } = ctx;
  const problems = [];
  const login = await httpJson(`${core.url}/api/v2/auth/login`, { method: 'POST', body: { userName: 'admin', password: 'secret' } });
  if (login.status !== 200 || !login.json || !login.json.accessToken)
    throw new Error(`signing in to the mock core answered ${login.status}: ${login.text}`);
  const token = login.json.accessToken;
  const ways = {};
  for (const mode of ['batch', 'request']) {
    if (config.warmup > 0) {
      // Warm up this way first (code loaded and optimised, connections open).
      const warm = await httpJson(`${nr.url}/bench/push/start`, { method: 'POST', body: { mode, n: config.warmup, token, window: config.window } });
      if (warm.status !== 200) throw new Error(`starting the ${mode} warm-up answered ${warm.status}: ${warm.text}`);
      const state = await waitForEnd(nr, config.timeoutMs);
      if (!state || !state.end || state.done !== config.warmup)
        problems.push(`push (${mode}) warm-up: ${state ? `${state.done} of ${config.warmup} pushed, ${state.failed} failed` : 'no state'}`);
      await delay(200);
    }
    const before = { batches: core.received.batchCount, items: core.received.itemCount, requests: core.received.requestCount };
    const started = await httpJson(`${nr.url}/bench/push/start`, {
      method: 'POST',
      body: { mode, n: config.transactions, token, window: config.window },
    });
    if (started.status !== 200) throw new Error(`starting the ${mode} push answered ${started.status}: ${started.text}`);
    const state = await waitForEnd(nr, config.timeoutMs);
    const requests = core.received.requestCount - before.requests;
    const items = core.received.itemCount - before.items;
    const ms = state && state.end ? state.end - state.start : null;
    ways[mode] = {
      transactions: config.transactions,
      inFlight: mode === 'batch' ? null : config.window,
      pushed: state ? state.done : 0,
      failed: state ? state.failed : 0,
      requests,
      batchRequests: core.received.batchCount - before.batches,
      itemsReceived: items,
      ms,
      transactionsPerSecond: ms ? Math.round((config.transactions / ms) * 1000) : null,
    };
    if (!state || !state.end)
      problems.push(
        `push (${mode}): not finished within ${config.timeoutMs} ms (${state ? `${state.done} pushed, ${state.failed} failed` : 'no state'})`,
      );
    else if (state.failed > 0 || state.done !== config.transactions)
      problems.push(`push (${mode}): ${state.done} of ${config.transactions} pushed, ${state.failed} failed`);
    if (items !== config.transactions) problems.push(`push (${mode}): the mock core received ${items} transactions, not ${config.transactions}`);
    log(`  push ${mode}: ${ms} ms, ${requests} requests`);
    await delay(200);
  }
  const b = ways.batch.transactionsPerSecond;
  const r = ways.request.transactionsPerSecond;
  return { ...ways, ratio: b && r ? +(b / r).toFixed(1) : null, problems };
}

module.exports = { runPush };
