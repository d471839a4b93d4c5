'use strict';
/**
 * The flows the bench deploys into one Node-RED, on one tab:
 *
 * receiver  POST /bench/detections: detection-in (Bearer token, schema check)
 *           → detection-dedupe → detection-switch → "count" (a function that
 *           counts messages at the end of the flow in flow context) →
 *           detection-done
 * durable   POST /bench/durable: the same with the receiver answering once
 *           the event is in its journal on disk
 * core      POST /bench/core: http in → switch (on payload.publishType) →
 *           http response, the flow a user would build from core nodes (the
 *           http response node answers msg.payload: the event, re-serialised)
 * core-ack  POST /bench/core-ack: the same with a change node setting a small
 *           answer before http response
 * redis     (only with `redis` given) a detection-redis configuration node and
 *           POST /bench/redis: the receiver answering once the event is in a
 *           Redis stream, into the same dedupe → switch → count → done;
 *           POST /bench/shared: the same into a dedupe shared through Redis
 *           (what several instances behind one address run; drops a message
 *           while Redis is unreachable, so a fault shows as a lost message);
 *           POST /bench/redis-held: a stream receiver whose events go nowhere,
 *           so they stay pending in the stream (to measure its memory);
 *           POST /bench/redis-confirm: the first, through a second
 *           configuration node (the same server) with Confirm on replicas 1
 *           (a WAIT for one replica before each 200: parts/redis.js starts it)
 * monitor   (only with `monitor` given, for an A/B run's "operator's view on"
 *           variant) a detection-monitor serving the receivers' metrics on
 *           httpNode at MONITOR_PATH, behind a Bearer token
 * stats     GET /bench/stats: the count; POST /bench/stats/reset
 * push      POST /bench/push/start {mode, n, token, window}: makes n POS
 *           transactions (one per message) into platform-push (batched) or a
 *           core http request node (one POST per transaction, `window` in
 *           flight); counters after each record when the last answer came
 *           back; GET /bench/push/state
 */

const TAB = 'benchtab00000001';
const POS_ID = 'pos-main-bar';

const fn = (id, name, func, wires, outputs = 1) => ({
  id,
  type: 'function',
  z: TAB,
  name,
  func,
  outputs,
  timeout: 0,
  noerr: 0,
  initialize: '',
  finalize: '',
  libs: [],
  wires,
});
const httpIn = (id, url, method, wires) => ({ id, type: 'http in', z: TAB, name: '', url, method, upload: false, swaggerDoc: '', wires });
const httpResponse = (id) => ({ id, type: 'http response', z: TAB, name: '', statusCode: '', headers: {}, wires: [] });

/** Confirm within of the bench's Confirm on replicas node (ms): longer than the node's 1000 ms default so a
 *  busy shared machine shows a slow confirmation in p99 rather than as a 503 (the cost measured is the WAIT). */
const CONFIRM_TIMEOUT_MS = 5000;

/** The Redis flows: `redis` = {url, prefix}. */
function redisFlows({ token, redis }) {
  const streamIn = (id, path, wires, extra = {}) => ({
    id,
    type: 'detection-in',
    z: TAB,
    name: '',
    path,
    auth: 'bearer',
    headerName: '',
    maxBodyMiB: 16,
    validation: 'lenient',
    ackMode: 'redis',
    redis: 'benchredis',
    streamMaxEvents: 10000,
    streamMaxMiB: 2048,
    claimAfterSeconds: 60,
    credentials: { token },
    wires,
    ...extra,
  });
  return [
    // Instance name left empty: each Node-RED is its host and port.
    { id: 'benchredis', type: 'detection-redis', name: '', url: redis.url, prefix: redis.prefix, instance: '', database: '', credentials: {} },
    streamIn('benchrin', '/bench/redis', [['benchddp'], []]),
    {
      id: 'benchredisc',
      type: 'detection-redis',
      name: 'confirm on replicas 1',
      url: redis.url,
      prefix: redis.prefix,
      instance: '',
      database: '',
      confirmReplicas: 1,
      confirmTimeoutMs: CONFIRM_TIMEOUT_MS,
      confirmAof: 'off',
      credentials: {},
    },
    streamIn('benchcin', '/bench/redis-confirm', [['benchddp'], []], { redis: 'benchredisc' }),
    streamIn('benchsin2', '/bench/shared', [['benchsddp'], []]),
    dedupeNode('benchsddp', { scope: 'redis', redis: 'benchredis', whenUnreachable: 'drop' }),
    // Never finished (no detection-done downstream), never claimed during a run.
    streamIn('benchheld', '/bench/redis-held', [[], []], {
      maxInFlight: 100000,
      maxInFlightMiB: 4096,
      claimAfterSeconds: 86400,
      finishedWhen: 'done',
    }),
  ];
}

/** The bench's dedupe on message ids, into the switch; `extra` for a shared window. */
function dedupeNode(id, extra = {}) {
  return {
    id,
    type: 'detection-dedupe',
    z: TAB,
    name: '',
    mode: 'id',
    key: 'messageId',
    keyType: 'msg',
    missingKey: 'pass',
    ttl: 1,
    ttlUnits: 'h',
    refresh: false,
    maxKeys: 100000,
    duplicatesOutput: false,
    persist: false,
    store: '',
    outputs: 1,
    wires: [['benchdsw']],
    ...extra,
  };
}

/** Where the bench's detection-monitor serves metrics (the node's default path). */
const MONITOR_PATH = '/detection-bridge/metrics';

/**
 * The operator's view (issue 27): Prometheus metrics of every receiver on
 * httpNode at MONITOR_PATH, Bearer token `token`; its health answers off (a
 * scraper does not ask them). The node's own defaults give the rest.
 */
function monitorNode({ token }) {
  return {
    id: 'benchmon',
    type: 'detection-monitor',
    z: TAB,
    name: '',
    metrics: true,
    metricsPath: MONITOR_PATH,
    health: false,
    credentials: { token },
    wires: [],
  };
}

function flows({ token, coreUrl, redis, monitor }) {
  const receiver = [
    {
      id: 'benchdin',
      type: 'detection-in',
      z: TAB,
      name: '',
      path: '/bench/detections',
      auth: 'bearer',
      headerName: '',
      maxBodyMiB: 16,
      validation: 'lenient',
      credentials: { token },
      wires: [['benchddp'], []],
    },
    dedupeNode('benchddp'),
    {
      id: 'benchdsw',
      type: 'detection-switch',
      z: TAB,
      name: '',
      property: 'payload',
      propertyType: 'msg',
      otherOutput: true,
      outputs: 3,
      wires: [['benchcnt'], ['benchcnt'], ['benchcnt']],
    },
    fn('benchcnt', 'count', "flow.set('count', (flow.get('count') || 0) + 1);\nreturn msg;", [['benchdone']]),
    // finished at the end of the flow: both receivers hold each event until here
    { id: 'benchdone', type: 'detection-done', z: TAB, name: '', passOn: false, outputs: 0, wires: [] },
    // the same receiver answering 200 once the event is in its journal on disk
    {
      id: 'benchdur',
      type: 'detection-in',
      z: TAB,
      name: '',
      path: '/bench/durable',
      auth: 'bearer',
      headerName: '',
      maxBodyMiB: 16,
      validation: 'lenient',
      ackMode: 'disk',
      journalMaxMiB: 2048,
      credentials: { token },
      wires: [['benchddp'], []],
    },
  ];

  const core = [
    httpIn('benchcin', '/bench/core', 'post', [['benchcsw']]),
    {
      id: 'benchcsw',
      type: 'switch',
      z: TAB,
      name: 'publishType',
      property: 'payload.publishType',
      propertyType: 'msg',
      rules: [{ t: 'eq', v: 'WebHookFaceRecPayload', vt: 'str' }, { t: 'eq', v: 'WebHookLprPayload', vt: 'str' }, { t: 'else' }],
      checkall: 'false',
      repair: false,
      outputs: 3,
      wires: [['benchcres'], ['benchcres'], ['benchcres']],
    },
    httpResponse('benchcres'),
    // The same flow answering a small body instead of echoing the event back.
    httpIn('benchain', '/bench/core-ack', 'post', [['benchasw']]),
    {
      id: 'benchasw',
      type: 'switch',
      z: TAB,
      name: 'publishType',
      property: 'payload.publishType',
      propertyType: 'msg',
      rules: [{ t: 'eq', v: 'WebHookFaceRecPayload', vt: 'str' }, { t: 'eq', v: 'WebHookLprPayload', vt: 'str' }, { t: 'else' }],
      checkall: 'false',
      repair: false,
      outputs: 3,
      wires: [['benchachg'], ['benchachg'], ['benchachg']],
    },
    {
      id: 'benchachg',
      type: 'change',
      z: TAB,
      name: 'answer',
      rules: [{ t: 'set', p: 'payload', pt: 'msg', to: '{"status":"accepted"}', tot: 'json' }],
      action: '',
      property: '',
      from: '',
      to: '',
      reg: false,
      wires: [['benchares']],
    },
    httpResponse('benchares'),
  ];

  const stats = [
    httpIn('benchsin', '/bench/stats', 'get', [['benchsfn']]),
    fn('benchsfn', 'stats', "msg.payload = { count: flow.get('count') || 0 };\nreturn msg;", [['benchsres']]),
    httpResponse('benchsres'),
    httpIn('benchrin', '/bench/stats/reset', 'post', [['benchrfn']]),
    fn('benchrfn', 'reset', "flow.set('count', 0);\nmsg.payload = { count: 0 };\nreturn msg;", [['benchrres']]),
    httpResponse('benchrres'),
  ];

  // One POS transaction per message; the same items for both ways. The
  // batched way gets all n at once (batching is for arrivals faster than a
  // round trip). The per-message way keeps `window` requests in flight, each
  // answer letting the next transaction go: its best case (all n at once
  // would open n connections to the core and stall in its accept queue).
  const makeTx =
    "({ transactionId: 'tx-' + s.start + '-' + i, terminal: 'T' + (i % 8), type: 'SALE', amount: (i % 1000) / 10, time: new Date(s.start).toISOString() })";
  const generate = `
const { mode, n, token, window } = msg.payload;
const s = { mode, n, token, next: 0, done: 0, failed: 0, start: Date.now(), end: null };
flow.set('push', s);
node.send([{ req: msg.req, res: msg.res, payload: { started: n } }, null, null]);
const first = mode === 'batch' ? n : Math.min(n, window);
for (; s.next < first; s.next++) {
  const i = s.next;
  const tx = ${makeTx};
  if (mode === 'batch') node.send([null, { payload: tx }, null]);
  else node.send([null, null, { payload: [tx], headers: { authorization: 'Bearer ' + token } }]);
}
return null;`;
  const countBatch = `
const s = flow.get('push');
if (msg.statusCode === 200) s.done += msg.count; else s.failed += msg.count;
if (s.done + s.failed >= s.n && !s.end) s.end = Date.now();
return null;`;
  // After each answer (or error) of the per-message way: count, send the next.
  const countRequest = (ok) => `
const s = flow.get('push');
if (!s) return null;
if (${ok}) s.done++; else s.failed += Array.isArray(msg.payload) ? msg.payload.length : 1;
if (s.done + s.failed >= s.n && !s.end) s.end = Date.now();
if (s.mode !== 'request' || s.next >= s.n) return null;
const i = s.next++;
const tx = ${makeTx};
return { payload: [tx], headers: { authorization: 'Bearer ' + s.token } };`;
  const countError = `
const s = flow.get('push');
if (s && s.mode === 'batch') { s.failed += 1; if (s.done + s.failed >= s.n && !s.end) s.end = Date.now(); }
return null;`;

  const push = [
    {
      id: 'benchsrv',
      type: 'platform-server',
      name: 'mock core',
      url: coreUrl,
      insecure: false,
      ca: '',
      timeout: 30,
      credentials: { userName: 'admin', password: 'secret' },
    },
    httpIn('benchpin', '/bench/push/start', 'post', [['benchpgen']]),
    fn('benchpgen', 'generate', generate, [['benchpres'], ['benchpush'], ['benchhreq']], 3),
    httpResponse('benchpres'),
    {
      id: 'benchpush',
      type: 'platform-push',
      z: TAB,
      name: '',
      server: 'benchsrv',
      operation: 'pos',
      posId: POS_ID,
      posIdType: 'str',
      path: '',
      pathType: 'str',
      batchSize: 100,
      batchMs: 1000,
      maxRetries: 5,
      configVersion: 2,
      wires: [['benchpcnt']],
    },
    fn('benchpcnt', 'count batches', countBatch, [[]]),
    {
      id: 'benchhreq',
      type: 'http request',
      z: TAB,
      name: '',
      method: 'POST',
      ret: 'obj',
      paytoqs: 'ignore',
      url: `${coreUrl}/api/v2/pos/plugins/${POS_ID}/events/batch`,
      tls: '',
      persist: true,
      proxy: '',
      insecureHTTPParser: false,
      authType: '',
      senderr: false,
      headers: [],
      wires: [['benchhcnt']],
    },
    fn('benchhcnt', 'count, next', countRequest('msg.statusCode === 200'), [['benchhreq']]),
    { id: 'benchpcatch', type: 'catch', z: TAB, name: '', scope: ['benchpush'], uncaught: false, wires: [['benchpcerr']] },
    fn('benchpcerr', 'count errors', countError, [[]]),
    { id: 'benchhcatch', type: 'catch', z: TAB, name: '', scope: ['benchhreq'], uncaught: false, wires: [['benchhcerr']] },
    fn('benchhcerr', 'count errors, next', countRequest('false'), [['benchhreq']]),
    httpIn('benchpsin', '/bench/push/state', 'get', [['benchpsfn']]),
    fn('benchpsfn', 'push state', "const s = flow.get('push');\nmsg.payload = s ? { ...s, token: undefined } : null;\nreturn msg;", [['benchpsres']]),
    httpResponse('benchpsres'),
  ];

  return [
    { id: TAB, type: 'tab', label: 'bench', disabled: false, info: '' },
    ...receiver,
    ...core,
    ...stats,
    ...push,
    ...(redis ? redisFlows({ token, redis }) : []),
    ...(monitor ? [monitorNode(monitor)] : []),
  ];
}

/** GET path → status once the flows above run. */
const READY = { '/bench/stats': 200, '/bench/push/state': 200, '/bench/detections': 405 };
/** The same with the Redis flows (their receivers answer 503 until connected: see parts/redis.js). */
const REDIS_READY = { ...READY, '/bench/redis': 405, '/bench/shared': 405, '/bench/redis-held': 405, '/bench/redis-confirm': 405 };

module.exports = { flows, POS_ID, READY, REDIS_READY, MONITOR_PATH, CONFIRM_TIMEOUT_MS };
