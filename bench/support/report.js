'use strict';
/** Plain-text tables of the bench results, and the targets of issue 6. */
const { verdict } = require('./ab');
const { renderPlates, platesTargets } = require('../parts/plates');

const MB = 1024 * 1024;

function table(headers, rows, align) {
  const cells = [headers, ...rows].map((r) => r.map((c) => (c === null || c === undefined ? '–' : String(c))));
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  const line = (r) => r.map((c, i) => (align && align[i] === 'l' ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(cells[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

const mb = (bytes) => (typeof bytes === 'number' ? (bytes / MB).toFixed(0) : null);
const num = (n, digits = 0) =>
  typeof n === 'number' ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : null;
const x = (n) => (typeof n === 'number' ? `${n.toFixed(2)}×` : null);

function sizeLabel(bytes) {
  return bytes >= 10 * 1024 ? `${Math.round(bytes / 1000)} KB` : `${(bytes / 1000).toFixed(1)} KB`;
}

/** The targets of the issue, evaluated on these results (never an exit code). */
function targets(results) {
  const out = [];
  const add = (name, value, limit, met, note) => out.push({ name, value, limit, met, note });
  const lpr = results.receiver && results.receiver.kinds.find((k) => k.kind === 'lpr');
  if (lpr) {
    add('receiver ÷ core, requests/s (LPR)', lpr.ratios.receiverToCoreRps, '≥ 2.5', lpr.ratios.receiverToCoreRps >= 2.5);
    add('receiver ÷ floor, requests/s (LPR)', lpr.ratios.receiverToFloorRps, '≥ 0.7', lpr.ratios.receiverToFloorRps >= 0.7);
    add(
      'receiver p99 ÷ core p99 (LPR)',
      lpr.ratios.receiverToCoreP99,
      '≤ 0.5',
      lpr.ratios.receiverToCoreP99 !== null && lpr.ratios.receiverToCoreP99 <= 0.5,
    );
    add('disk journal ÷ memory, requests/s (LPR)', lpr.ratios.durableToReceiverRps, '≥ 0.5', lpr.ratios.durableToReceiverRps >= 0.5);
    for (const k of results.receiver.kinds) {
      const share = k.ratios.viewShareOfReceiver;
      if (typeof share === 'number') add(`msg.detection share of receiver time, % (${k.label})`, +(share * 100).toFixed(2), '≤ 3', share <= 0.03);
    }
    add('disk journal ÷ write-and-sync limit (LPR)', lpr.ratios.durableToDiskLimitRps, '≥ 0.8', lpr.ratios.durableToDiskLimitRps >= 0.8);
  }
  // Issue 29: the bodies real senders write, as fast as plain ones and above their own floor.
  for (const k of results.receiver
    ? results.receiver.kinds.filter((k) => k.ratios.receiverToPlainRps !== undefined && k.kind.startsWith('lpr'))
    : []) {
    add(`receiver ÷ the same plain body, requests/s (${k.label})`, k.ratios.receiverToPlainRps, '≥ 0.95', k.ratios.receiverToPlainRps >= 0.95);
    add(`receiver ÷ its own floor, requests/s (${k.label})`, k.ratios.receiverToFloorRps, '≥ 1.1', k.ratios.receiverToFloorRps >= 1.1);
  }
  if (results.dedupe) {
    for (const s of results.dedupe.sizes) add(`dedupe checks/s at ${num(s.keys)} keys`, s.checksPerSecond, '≥ 1,000,000', s.checksPerSecond >= 1e6);
    const largest = results.dedupe.sizes[results.dedupe.sizes.length - 1];
    if (largest) add(`dedupe heap bytes/key at ${num(largest.keys)} keys`, largest.heapBytesPerKey, '≤ 200', largest.heapBytesPerKey <= 200);
  }
  if (results.plates) platesTargets(results.plates, add);
  if (results.push && results.push.ratio !== undefined) {
    add('push: batched ÷ per-message transactions/s', results.push.ratio, '≥ 10', results.push.ratio >= 10);
  }
  return out;
}

function render(results) {
  const parts = [];
  const m = results.machine;
  parts.push(
    `detection-bridge bench (${results.mode}): ${m.cpus} CPUs (${m.cpuModel}), Node ${m.node}, Node-RED ${m.nodeRed}, ${m.platform}/${m.arch}`,
  );

  if (results.receiver) {
    const rows = [];
    for (const k of results.receiver.kinds) {
      for (const [name, t] of Object.entries(k.targets)) {
        rows.push([
          name === 'receiver' ? `${k.label} (${sizeLabel(k.bodyBytes)})` : '',
          name,
          num(t.rps, 1),
          num(t.p50Ms, 1),
          num(t.p99Ms, 1),
          t.peakRssBytes === null ? null : `${mb(t.peakRssBytes)} (${t.rssOf})`,
        ]);
      }
      if (k.ratios.receiverToPlainRps !== undefined) {
        rows.push(['', 'receiver ÷ floor (its own)', x(k.ratios.receiverToFloorRps), '', '', '']);
        rows.push(['', 'receiver ÷ receiver-plain', x(k.ratios.receiverToPlainRps), '', '', '']);
        continue;
      }
      rows.push(['', 'receiver ÷ core', x(k.ratios.receiverToCoreRps), '', x(k.ratios.receiverToCoreP99), '']);
      rows.push(['', 'receiver ÷ floor', x(k.ratios.receiverToFloorRps), '', '', '']);
      rows.push(['', 'write-and-sync limit', num(k.diskLimitRps, 1), '', '', '']);
      rows.push(['', 'durable ÷ receiver', x(k.ratios.durableToReceiverRps), '', '', '']);
      rows.push(['', 'durable ÷ limit', x(k.ratios.durableToDiskLimitRps), '', '', '']);
      const byRound = k.ratios.durableToDiskLimitRounds;
      if (byRound) rows.push(['', 'durable ÷ limit, by round', `${x(byRound.median)} (${x(byRound.min)}–${x(byRound.max)})`, '', '', '']);
      if (typeof k.viewMicros === 'number') {
        const share = k.ratios.viewShareOfReceiver;
        rows.push([
          '',
          `msg.detection ${num(k.viewMicros, 1)} µs/event`,
          typeof share === 'number' ? `${(share * 100).toFixed(1)}%` : null,
          '',
          '',
          '',
        ]);
      }
    }
    const k0 = results.receiver.kinds[0];
    parts.push(
      `\nReceiver: ${k0.connections} connections, alternating rounds (per target: ${results.receiver.kinds.map((k) => `${k.label} ${k.rounds} × ${k.secondsPerRound} s`).join(', ')})\n` +
        table(['body', 'target', 'req/s', 'p50 ms', 'p99 ms', 'peak RSS MB'], rows, ['l', 'l']),
    );
    parts.push(
      'receiver: detection-in (Bearer, schema check) → dedupe → switch → detection-done; durable: the same answering once the event is in its journal on disk;\n' +
        "write-and-sync limit: the same bytes appended and fdatasync-ed, one sync per batch of as many bodies as connections, on the journal's file system, measured in every round right after durable;\n" +
        'core: http in → switch → http response (answers the event back);\n' +
        'core-ack: the same with a small answer; floor: bare node:http + JSON.parse in its own process. RSS of receiver and core: the same Node-RED process.\n' +
        'System.Text.Json: the same event as .NET writes it by default (`+` as \\u002B, non-ASCII and <>&\'"` escaped); \\/ escaped: every `/` as \\/;\n' +
        'receiver-plain: the receiver on the plain body of the same event, in the same rounds; their floor: JSON.parse of the same escaped bytes.',
    );
  }

  if (results.receiverAb) parts.push(renderReceiverAb(results.receiverAb, results.mode));

  if (results.burst) {
    const b = results.burst;
    parts.push(
      `\nBurst: ${b.connections} connections × ${sizeLabel(b.bodyBytes)} plate events for ${b.seconds} s at detection-in (RSS of Node-RED, MB; emitted: counted at the end of the flow)\n` +
        table(
          ['requests', 'answered 200', 'emitted', 'other', 'req/s', 'p50 ms', 'p99 ms', 'RSS idle MB', 'peak 1st half', 'peak 2nd half', 'after MB'],
          [
            [
              num(b.requests),
              num(b.answered200),
              num(b.emitted),
              num(b.notAnswered200),
              num(b.rps, 1),
              num(b.p50Ms, 1),
              num(b.p99Ms, 1),
              mb(b.idleRssBytes),
              mb(b.peakRssFirstHalfBytes),
              mb(b.peakRssSecondHalfBytes),
              mb(b.afterRssBytes),
            ],
          ],
        ),
    );
  }

  if (results.dedupe) {
    parts.push(
      '\nDedupe: DedupeWindow (lib/dedupe/local-window.ts), message-id-like flat strings, full window, half repeats / half new keys\n' +
        table(
          ['keys', 'checks/s', 'ns/check', 'heap bytes/key', 'bare Map checks/s'],
          results.dedupe.sizes.map((s) => [
            num(s.keys),
            num(s.checksPerSecond),
            num(s.nsPerCheck, 0),
            num(s.heapBytesPerKey, 1),
            num(s.bareMapChecksPerSecond),
          ]),
        ),
    );
  }

  if (results.plates) parts.push(renderPlates(results.plates, table));

  if (results.push) {
    const p = results.push;
    const row = (label, w) => [label, num(w.transactions), num(w.requests), num(w.ms), num(w.transactionsPerSecond), num(w.failed)];
    parts.push(
      `\nPush: ${num(p.batch.transactions)} POS transactions into the mock core, one per message\n` +
        table(
          ['way', 'transactions', 'requests', 'ms', 'transactions/s', 'failed'],
          [
            row('platform-push (batches of 100)', p.batch),
            row(`http request (one POST each, ${p.request.inFlight} in flight)`, p.request),
            ['batched ÷ per-message', '', '', '', x(p.ratio), ''],
          ],
          ['l'],
        ),
    );
  }

  if (results.redis) parts.push(renderRedis(results.redis));

  if (results.targets.length) {
    parts.push(
      `\nTargets${results.mode === 'quick' ? ' (not judged: a quick run is too small and short to mean anything)' : ''}\n` +
        table(
          ['target', 'measured', 'wanted', ''],
          results.targets.map((t) => [
            t.name,
            typeof t.value === 'number' ? (t.value >= 1000 ? num(t.value) : num(t.value, 2)) : null,
            t.limit,
            results.mode === 'quick' ? '' : t.met ? 'met' : 'MISSED',
          ]),
          ['l'],
        ),
    );
  }
  if (results.problems.length) parts.push(`\nPROBLEMS (the bench exits 1):\n${results.problems.map((p) => `- ${p}`).join('\n')}`);
  return parts.join('\n');
}

/** `text` broken into lines of at most `width` characters, at spaces. */
function wrap(text, width) {
  const lines = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines.join('\n');
}

/** The issue 27 line: plate throughput with the operator's view on ÷ the baseline, median of the rounds, at least this. */
const TWO_PERCENT_LINE = 0.98;

const r3 = (n) => (typeof n === 'number' ? n.toFixed(3) : '–');
const spreadText = (s) => (s && s.median !== null ? `${r3(s.median)} (${r3(s.min)}–${r3(s.max)})` : null);

/**
 * The 2% line of issue 27 on an A/B run: {text, verdict}. Judged on plate
 * bodies, current with the monitor on ÷ baseline, median of the rounds; never
 * an exit code (timings are not assertions).
 */
function twoPercentLine(ab, mode) {
  const lpr = ab.kinds.find((k) => k.kind === 'lpr');
  const base = `baseline ${ab.baseline ? ab.baseline.short : ''}`.trim();
  if (!lpr) return { text: '2% line (issue 27): not judged: no plate bodies in this run (--bodies lpr)', verdict: null };
  const withMonitor = lpr.ratios.monitorToBaseline;
  const ratio = withMonitor || lpr.ratios.currentToBaseline;
  const v = verdict(ratio.rps.rounds, TWO_PERCENT_LINE);
  const what = withMonitor
    ? `current with the operator's view on ÷ ${base}`
    : `current ÷ ${base} (WITHOUT the operator's view: ${ab.monitorNote ? 'no detection-monitor in this build' : 'run with --monitor'})`;
  const figure = `${r3(v.median)}, median of ${v.n} rounds (min ${r3(v.min)}, max ${r3(v.max)})`;
  let outcome;
  if (v.median === null) outcome = 'not judged: no round measured';
  else if (mode === 'quick') outcome = 'not judged: a quick run is too small and short to mean anything';
  else {
    outcome = v.met ? `MET, costs at most 2% (≥ ${TWO_PERCENT_LINE})` : `MISSED, costs more than 2% (< ${TWO_PERCENT_LINE})`;
    outcome += v.clear
      ? ', every round on the same side'
      : `; the rounds straddle ${TWO_PERCENT_LINE}: not to be trusted yet (more --rounds, or a quieter machine)`;
  }
  let text = `2% line (issue 27): plate req/s, ${what} = ${figure}: ${outcome}`;
  const c = ratio.cpu && ratio.cpu.median !== null ? ratio.cpu : null;
  if (c)
    text +=
      `\n  the same by the receiver's CPU time per event (baseline's ÷ this one's; little moved by other processes): ` +
      `${r3(c.median)} (min ${r3(c.min)}, max ${r3(c.max)})`;
  return { text, verdict: v, cpu: c };
}

const RATIO_LABELS = {
  currentToBaseline: 'current ÷ baseline',
  monitorToBaseline: 'current + monitor ÷ baseline',
  monitorToCurrent: 'current + monitor ÷ current',
};

function renderReceiverAb(ab, mode) {
  const parts = [];
  const subject = ab.baseline && ab.baseline.subject.length > 60 ? `${ab.baseline.subject.slice(0, 59)}…` : ab.baseline && ab.baseline.subject;
  const base = ab.baseline ? `${ab.baseline.short} (${subject})` : '';
  const rows = [];
  for (const k of ab.kinds) {
    let first = true;
    for (const t of Object.values(k.targets)) {
      rows.push([
        first ? `${k.label} (${sizeLabel(k.bodyBytes)})` : '',
        t.label,
        num(t.rps, 1),
        num(t.p50Ms, 1),
        num(t.p99Ms, 1),
        mb(t.peakRssBytes),
        num(t.cpuMsPerRequest, 2),
        t.roundsRps.map((n) => num(n, 0)).join(' '),
      ]);
      first = false;
    }
    for (const [key, r] of Object.entries(k.ratios)) {
      const label = RATIO_LABELS[key] || key;
      rows.push(['', label, spreadText(r.rps), '', spreadText(r.p99), '', spreadText(r.cpu), r.rps.rounds.map(r3).join(' ')]);
    }
  }
  const k0 = ab.kinds[0];
  parts.push(
    `\nReceiver A/B against baseline ${base}: ${k0 ? k0.connections : '?'} connections, one Node-RED per build, ${ab.together ? 'the builds loaded at the same time, each with its own connections' : 'the builds taking turns'} (${ab.kinds
      .map((k) => `${k.label} ${k.rounds} × ${k.secondsPerRound} s`)
      .join(', ')})\n` +
      table(['body', 'build', 'req/s', 'p50 ms', 'p99 ms', 'peak RSS MB', 'CPU ms/event', 'req/s per round (ratio rows: per round)'], rows, [
        'l',
        'l',
        'r',
        'r',
        'r',
        'r',
        'r',
        'l',
      ]),
  );
  parts.push(
    'Each build: detection-in (Bearer, schema check) → dedupe → switch → count → detection-done, in a Node-RED of its own; the same load generator,\n' +
      'connections and bodies. Ratio rows: median of the per-round ratios (min–max) of req/s, p99 and CPU ms/event (that one inverted: baseline ÷ build,\n' +
      "to read like req/s); round order A B, B A, … (rotated). CPU ms/event: the Node-RED process's CPU time (all threads) per request answered.",
  );
  if (ab.machine) {
    const m = ab.machine;
    parts.push(
      `Machine during the rounds: CPUs busy ${num(m.cpusBusyAll, 2)} of ${m.cpus} (ours ${num(m.cpusBusyOurs, 2)}, other processes ${num(m.cpusBusyOthers, 2)}); ` +
        `1-minute load average ${num(m.loadAverage1mBefore, 2)} before, ${num(m.loadAverage1mAfter, 2)} after. Other processes' load is the noise in the ratios.`,
    );
  }
  if (ab.scrape)
    parts.push(
      `Operator's view: GET ${ab.scrape.path} every ${ab.scrape.everyMs / 1000} s during the whole run: ${num(ab.scrape.scrapes)} scrapes (${Object.entries(
        { ...ab.scrape.statuses, ...ab.scrape.errors },
      )
        .map(([k, n]) => `${n} × ${k}`)
        .join(', ')}), last ${kb(ab.scrape.lastBytes)}`,
    );
  if (ab.monitorNote) parts.push(`Note: ${ab.monitorNote}`);
  if (ab.baseline) for (const note of ab.baseline.notes) parts.push(`Note: ${note}`);
  parts.push(`\n${twoPercentLine(ab, mode).text}`);
  return parts.join('\n');
}

const kb = (bytes) => (typeof bytes === 'number' ? `${num(bytes / 1000, 1)} KB` : null);

function renderRedis(r) {
  if (r.skipped) return `\nRedis: skipped: ${r.skipped}`;
  const parts = [`\nRedis ${r.version || ''}: redis-server on 127.0.0.1, started and stopped by the bench`];
  if (r.dedupe) {
    const d = r.dedupe;
    parts.push(
      `Shared dedupe: a window of ${num(d.keys)} message ids, then checks of half repeats / half new ids (SET NX PX GET per check; every way found exactly the repeats)\n` +
        table(
          ['way', 'checks', 'checks/s', 'µs/check', 'CPU µs/check client', 'Redis', '÷ in memory'],
          d.ways.map((w) => [
            w.label,
            num(w.checks),
            num(w.checksPerSecond),
            num(w.usPerCheck, 2),
            num(w.cpuUsPerCheck.client, 2),
            num(w.cpuUsPerCheck.redis, 2),
            w.way === 'memory' ? '' : x(w.toMemory),
          ]),
          ['l'],
        ) +
        `\npipelined (${num(d.largestBatch)} per batch) ÷ awaited one by one: ${x(d.ratios.pipelinedToAwaited)}; ` +
        `without the bound on each answer ÷ with it: ${x(d.ratios.untimedToPipelined)}; Redis memory per key held: ${num(d.redisBytesPerKey)} bytes`,
    );
  }
  // With --gc: Node-RED's main-thread garbage-collection pauses per event as well.
  const withGc = [r.receiver, r.instances].some((v) => v && Object.values(v.targets).some((t) => typeof t.cpuMsPerRequest.nodeRedGc === 'number'));
  // Node-RED's CPU per event, and in brackets what of it is known apart (results of older runs lack some).
  const nodeRedCpu = (c) => {
    const within = [
      typeof c.nodeRedMain === 'number' ? `main ${num(c.nodeRedMain, 2)}` : undefined,
      typeof c.nodeRedSystem === 'number' ? `kernel ${num(c.nodeRedSystem, 2)}` : undefined,
      typeof c.nodeRedGc === 'number' ? `GC ${num(c.nodeRedGc, 2)}` : undefined,
    ].filter(Boolean);
    return within.length ? `${num(c.nodeRed, 2)} (${within.join(', ')})` : num(c.nodeRed, 2);
  };
  // `replica`: with the CPU time of the replica (the receiver rounds run with one attached).
  const cpuRows = (t, replica) => [
    num(t.rps, 1),
    num(t.mbPerSecond, 1),
    num(t.notOk),
    num(t.p50Ms, 1),
    num(t.p99Ms, 1),
    nodeRedCpu(t.cpuMsPerRequest),
    num(t.cpuMsPerRequest.redis, 2),
    ...(replica ? [t.cpuMsPerRequest.replica === undefined ? '–' : num(t.cpuMsPerRequest.replica, 2)] : []),
    num(t.cpuMsPerRequest.generator, 2),
    `${num(t.cpusBusy, 2)} / ${num(t.machineCpusBusy, 2)}`,
  ];
  const headers = (replica) => [
    'target',
    'req/s',
    'MB/s',
    'not 200',
    'p50 ms',
    'p99 ms',
    `CPU ms/event Node-RED (on its main thread, in the kernel${withGc ? ', GC pauses' : ''})`,
    'Redis',
    ...(replica ? ['replica'] : []),
    'generator',
    `CPUs busy: ours / all (of ${r.cpus})`,
  ];
  const blank = (first, second, replica) => [
    first,
    second,
    ...headers(replica)
      .slice(2)
      .map(() => ''),
  ];
  if (r.receiver) {
    const v = r.receiver;
    const replica = Boolean(v.confirm);
    // Since issue 29: the confirm rounds on their own, against the stream with the same replica attached.
    const ownRounds = v.ratios.replicaToRedisRps !== undefined;
    const rows = Object.entries(v.targets).map(([name, t]) => [name, ...cpuRows(t, replica)]);
    rows.push(blank('redis ÷ memory', x(v.ratios.redisToMemoryRps), replica));
    rows.push(blank('redis + shared dedupe ÷ memory', x(v.ratios.sharedToMemoryRps), replica));
    if (v.confirm) {
      const c = v.ratios;
      if (ownRounds) rows.push(blank('redis, replica attached ÷ redis', x(c.replicaToRedisRps), replica));
      rows.push([
        ownRounds ? 'redis confirm 1 ÷ redis, replica attached' : 'redis confirm 1 ÷ redis',
        x(c.confirmToRedisRps),
        '',
        '',
        x(c.confirmToRedisP50),
        x(c.confirmToRedisP99),
        ...headers(replica)
          .slice(6)
          .map(() => ''),
      ]);
    }
    if (v.redisEventsPerSecondOfOneRedis) rows.push(blank('one Redis’s own limit (redis)', `${num(v.redisEventsPerSecondOfOneRedis)}/s`, replica));
    parts.push(
      `\nReceiver, plate events of ${sizeLabel(v.bodyBytes)}, ${v.connections} connections, one Node-RED, alternating rounds (${v.rounds} × ${v.secondsPerRound} s each)\n` +
        table(headers(replica), rows, ['l']) +
        '\nmemory: acknowledged from memory; redis: once the event is in the Redis stream (one transaction: a plain XADD between two small scripts that claim it), finished (XACK + XDEL) by detection-done;\n' +
        'one Redis’s own limit: plate events a second one Redis could take for all instances together, 1 / its CPU time per event accepted;\n' +
        'redis + shared dedupe: the same into the dedupe shared through Redis. All: → dedupe → switch → count → detection-done.\n' +
        (v.confirm
          ? `redis confirm 1: the same as redis through a configuration node with Confirm on replicas 1 (Confirm within ${num(v.confirm.timeoutMs)} ms): ` +
            `a WAIT for the replica after the take, before the 200 (${num(v.confirm.waits)} WAITs, ${num(v.confirm.eventsPerWait, 2)} events per WAIT);\n` +
            (ownRounds
              ? 'both in rounds of their own, a replica of the bench’s Redis attached (their writes reach it; its CPU: column replica); the rows above it run without one.\n'
              : 'a replica of the bench’s Redis is attached during these rounds (every target’s writes reach it; its CPU: column replica).\n')
          : '') +
        'req/s and MB/s: events accepted (answered 200; MB: 10^6 bytes of bodies); CPU: per event accepted; a 503 (receiver full) is counted in "not 200".',
    );
  }
  if (r.take) {
    const t = r.take;
    const row = (label, w) => [
      label,
      num(w.takes),
      num(w.redisCpuMsPerTake, 3),
      w.eventsPerSecondOfOneRedis ? `${num(w.eventsPerSecondOfOneRedis)}/s` : '–',
    ];
    parts.push(
      `\nTaking a plate event of ${sizeLabel(t.bodyBytes)} into a stream, one after another, alternating rounds; Redis CPU only\n` +
        table(
          ['way', 'events', 'Redis CPU ms/event', 'one Redis’s limit'],
          [
            row('transaction: XADD between two small scripts (now)', t.transaction),
            row('one script, the body its argument (before issue 29)', t.script),
            ['transaction ÷ script', '', '', x(t.transactionToScriptEventsPerSecond)],
          ],
          ['l'],
        ),
    );
  }
  if (r.stream) {
    const s = r.stream;
    parts.push(
      `\nRedis memory per pending event (${num(s.events)} plate events left pending in a stream, ${num(s.pending)} in its pending list)\n` +
        table(
          ['body', 'metadata', 'used_memory / event', 'MEMORY USAGE / event', 'per event ÷ body'],
          [[kb(s.bodyBytes), `${num(s.metaBytes)} B`, kb(s.usedMemoryPerEvent), kb(s.memoryUsagePerEvent), x(s.perEventToBody)]],
        ),
    );
  }
  if (r.instances) {
    const v = r.instances;
    const rows = Object.entries(v.targets).map(([name, t]) => [
      name + (t.perTarget ? ` (${t.perTarget.map((p) => num(p.requests)).join(' + ')} requests)` : ''),
      ...cpuRows(t, false),
    ]);
    rows.push(blank('two ÷ one', x(v.ratios.twoToOneRps), false));
    parts.push(
      `\nInstances: one Node-RED against two (Redis stream, one Redis), plate events of ${sizeLabel(v.bodyBytes)}, ${v.connections} connections in all, round robin over the instances, alternating rounds (${v.rounds} × ${v.secondsPerRound} s each)\n` +
        table(headers(false), rows, ['l']) +
        `\n${wrap(`Caveat: ${v.caveat}`, 120)}`,
    );
  }
  return parts.join('\n');
}

module.exports = { render, targets, table, twoPercentLine, TWO_PERCENT_LINE };
