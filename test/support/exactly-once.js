'use strict';
/**
 * The check of "exactly once across the crash window" (issue 27) in end-to-end
 * tests. A flow writes a probe record for each message as detection-in emits
 * it (`at: 'in'`) and as it reaches the end of the flow (`at: 'end'`, just
 * before detection-done), each with the messageId, the delivery it belongs to
 * (`msg._delivery.id`: the journal's record or the Redis entry), whether it
 * came again (`redelivered`) and the time (`t`, ms; instances on one machine
 * share the clock).
 */
const fs = require('node:fs');

/** The probe function's body: `at` is 'in' or 'end'; `wrap`: the record goes out as a new message (the event goes on untouched). */
function probeRecord(at) {
  return (
    `JSON.stringify({ messageId: msg.messageId, at: '${at}', delivery: String(msg._delivery && msg._delivery.id), ` +
    `redelivered: msg.redelivered === true, t: Date.now() })`
  );
}

/**
 * The records in `file`. A SIGKILL can cut a line short and the next record
 * then follows the fragment on the same line: whole records are read wherever they are.
 */
function readProbe(file) {
  if (!fs.existsSync(file)) return [];
  const out = [];
  for (const m of fs.readFileSync(file, 'utf8').matchAll(/\{"messageId":"[^"]*"[^{}\n]*\}/g)) {
    try {
      out.push(JSON.parse(m[0]));
    } catch {
      // a fragment that happens to end in a brace
    }
  }
  return out;
}

/**
 * What breaks the promise, as readable lines (none: kept):
 * - at the receiver, a second delivery of a messageId emitted while an earlier one was held
 *   unfinished (emitted, not at the end yet): the resend must be absorbed;
 * - at the end, copies of one messageId from two deliveries, or a repeat not flagged redelivered.
 * The one duplicate left, documented: the same delivery again, flagged (finished just before a
 * crash whose completion had not been written).
 */
function exactlyOnceProblems(records) {
  const byId = new Map();
  for (const r of records) {
    if (!byId.has(r.messageId)) byId.set(r.messageId, []);
    byId.get(r.messageId).push(r);
  }
  const problems = [];
  let documented = 0;
  for (const [messageId, list] of byId) {
    const deliveries = new Map();
    for (const r of list) {
      const d = deliveries.get(r.delivery) ?? { firstIn: Infinity, firstEnd: Infinity };
      if (r.at === 'in') d.firstIn = Math.min(d.firstIn, r.t);
      else d.firstEnd = Math.min(d.firstEnd, r.t);
      deliveries.set(r.delivery, d);
    }
    for (const [y, dy] of deliveries) {
      for (const [x, dx] of deliveries) {
        // x emitted first (ties aside) and not at the end before y was emitted: both held at once
        if (x !== y && dx.firstIn < dy.firstIn && dx.firstEnd > dy.firstIn) {
          problems.push(`${messageId}: delivery ${y} emitted while delivery ${x} was held unfinished ${JSON.stringify(list)}`);
        }
      }
    }
    const ends = list.filter((r) => r.at === 'end').sort((a, b) => a.t - b.t);
    if (new Set(ends.map((r) => r.delivery)).size > 1) problems.push(`${messageId}: two deliveries reached the end ${JSON.stringify(ends)}`);
    if (ends.slice(1).some((r) => !r.redelivered)) problems.push(`${messageId}: a repeat at the end not flagged redelivered ${JSON.stringify(ends)}`);
    documented += Math.max(0, ends.length - 1);
  }
  return { problems, documented, ids: byId.size };
}

module.exports = { probeRecord, readProbe, exactlyOnceProblems };
