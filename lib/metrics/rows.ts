/**
 * What the exporter (./prometheus.ts) serves of its sources, one row per
 * metric: its name, its help, which kind of source it reads and what of it.
 * A metric of the package is added here, nowhere else.
 */
import type { SourceEntry, SourceKind } from './sources';

export interface Snapshot {
  kind: SourceKind;
  entry: SourceEntry;
  counters: Record<string, number>;
  gauges: Record<string, number>;
  ready?: boolean;
}

type Reading = (s: Snapshot) => number | undefined;

/** One metric per row: its name, what it reads, of which kind of source. */
export interface Row {
  name: string;
  help: string;
  kind: SourceKind;
  type: 'counter' | 'gauge';
  value: Reading;
}

export const NODE_LABELS = ['node', 'name'] as const;

export const ROWS: Row[] = [
  {
    name: 'detection_bridge_events_accepted_total',
    help: 'Events a receiver accepted (answered 200).',
    kind: 'receiver',
    type: 'counter',
    value: (s) => s.counters.accepted ?? 0,
  },
  {
    name: 'detection_bridge_events_refused_total',
    help: 'Events a receiver refused for now (503: in flight full, journal full, Redis unreachable); the bridge sends them again.',
    kind: 'receiver',
    type: 'counter',
    value: (s) => sumStatus(s.entry, 503) + sumStatus(s.entry, 429),
  },
  {
    name: 'detection_bridge_events_redelivered_total',
    help: 'Events emitted again (any cause).',
    kind: 'receiver',
    type: 'counter',
    value: (s) => s.counters.redelivered,
  },
  {
    name: 'detection_bridge_attempts_failed_total',
    help: 'Attempts that failed (a flow said failed, or the time limit passed).',
    kind: 'receiver',
    type: 'counter',
    value: (s) => s.counters.failed,
  },
  {
    name: 'detection_bridge_events_dead_lettered_total',
    help: 'Events kept aside after their last attempt failed.',
    kind: 'receiver',
    type: 'counter',
    value: (s) => s.counters.deadLettered,
  },
  {
    name: 'detection_bridge_dead_letters_dropped_total',
    help: 'Dead letters dropped past the cap.',
    kind: 'receiver',
    type: 'counter',
    value: (s) => s.counters.deadLettersDropped,
  },
  { name: 'detection_bridge_dead_letters', help: 'Dead letters kept now.', kind: 'receiver', type: 'gauge', value: (s) => s.gauges.deadLetters },
  {
    name: 'detection_bridge_events_in_flight',
    help: 'Events taken and not finished.',
    kind: 'receiver',
    type: 'gauge',
    value: (s) => s.gauges.inFlightEvents,
  },
  {
    name: 'detection_bridge_bytes_in_flight',
    help: 'Bytes of the events taken and not finished.',
    kind: 'receiver',
    type: 'gauge',
    value: (s) => s.gauges.inFlightBytes,
  },
  {
    name: 'detection_bridge_oldest_unfinished_event_age_seconds',
    help: 'Age of the oldest event taken and not finished (0: none).',
    kind: 'receiver',
    type: 'gauge',
    value: (s) => s.gauges.oldestUnfinishedAgeSeconds,
  },
  {
    name: 'detection_bridge_oldest_unpaused_event_age_seconds',
    help: 'Age of the oldest event taken and not finished that is not waiting out a retry pause (0: none): what to alert on.',
    kind: 'receiver',
    type: 'gauge',
    value: (s) => s.gauges.oldestUnpausedAgeSeconds,
  },
  {
    name: 'detection_bridge_journal_bytes',
    help: 'Size of the journal file (disk mode).',
    kind: 'receiver',
    type: 'gauge',
    value: (s) => s.gauges.journalBytes,
  },
  {
    name: 'detection_bridge_stream_pending',
    help: "Entries pending in the receiver's Redis stream, all instances (redis mode).",
    kind: 'receiver',
    type: 'gauge',
    value: (s) => s.gauges.streamPending,
  },
  {
    name: 'detection_bridge_receiver_ready',
    help: 'Whether the receiver takes events now (1) or not (0); see the readiness answer for why.',
    kind: 'receiver',
    type: 'gauge',
    value: (s) => (s.ready === undefined ? undefined : s.ready ? 1 : 0),
  },
  {
    name: 'detection_bridge_redis_up',
    help: "Whether the receiver's Redis connection is up (1) or not (0) (redis mode).",
    kind: 'receiver',
    type: 'gauge',
    value: (s) => s.gauges.redisUp,
  },
  {
    name: 'detection_bridge_dedupe_passed_total',
    help: 'Messages a dedupe node passed.',
    kind: 'dedupe',
    type: 'counter',
    value: (s) => s.counters.passed,
  },
  {
    name: 'detection_bridge_dedupe_dropped_total',
    help: 'Messages a dedupe node dropped as repeats.',
    kind: 'dedupe',
    type: 'counter',
    value: (s) => s.counters.dropped,
  },
  {
    name: 'detection_bridge_dedupe_held_total',
    help: "Messages a dedupe node's cap held back (summed up in its digests).",
    kind: 'dedupe',
    type: 'counter',
    value: (s) => s.counters.held,
  },
  {
    name: 'detection_bridge_presence_arrived_total',
    help: 'Arrivals a presence node sent.',
    kind: 'presence',
    type: 'counter',
    value: (s) => s.counters.arrived,
  },
  {
    name: 'detection_bridge_presence_left_total',
    help: 'Departures a presence node sent.',
    kind: 'presence',
    type: 'counter',
    value: (s) => s.counters.left,
  },
  {
    name: 'detection_bridge_presence_still_here_total',
    help: 'Still-here messages a presence node sent.',
    kind: 'presence',
    type: 'counter',
    value: (s) => s.counters.stillHere,
  },
  {
    name: 'detection_bridge_presence_dropped_total',
    help: 'Keys a presence node dropped past its Most keys.',
    kind: 'presence',
    type: 'counter',
    value: (s) => s.counters.dropped,
  },
  {
    name: 'detection_bridge_presence_present',
    help: 'Keys a presence node holds as present now.',
    kind: 'presence',
    type: 'gauge',
    value: (s) => s.gauges.present,
  },
  {
    name: 'detection_bridge_alarms_opened_total',
    help: 'Alarms an alarm node opened (one per visit: reads that joined an open alarm are not counted).',
    kind: 'alarm',
    type: 'counter',
    value: (s) => s.counters.opened,
  },
  {
    name: 'detection_bridge_alarms_acknowledged_total',
    help: 'Alarms acknowledged through an alarm node (a message, a Telegram button, the mail link, the dashboard).',
    kind: 'alarm',
    type: 'counter',
    value: (s) => s.counters.acknowledged,
  },
  {
    name: 'detection_bridge_alarm_reminders_total',
    help: 'Reminders an alarm node sent for unacknowledged alarms.',
    kind: 'alarm',
    type: 'counter',
    value: (s) => s.counters.reminders,
  },
  {
    name: 'detection_bridge_alarms_escalated_total',
    help: 'Alarms escalated (sent on the escalation output) because nobody acknowledged them in time.',
    kind: 'alarm',
    type: 'counter',
    value: (s) => s.counters.escalations,
  },
  {
    name: 'detection_bridge_alarm_alerts_held_total',
    help: 'Alerts an alarm node held while snoozed or disarmed (summed up when it resumed).',
    kind: 'alarm',
    type: 'counter',
    value: (s) => s.counters.held,
  },
  {
    name: 'detection_bridge_alarms_open',
    help: 'Alarms open or acknowledged and not closed yet.',
    kind: 'alarm',
    type: 'gauge',
    value: (s) => s.gauges.open,
  },
  {
    name: 'detection_bridge_push_batches_sent_total',
    help: 'Batches a platform push node sent successfully.',
    kind: 'push',
    type: 'counter',
    value: (s) => s.counters.batchesSent,
  },
  {
    name: 'detection_bridge_push_batches_failed_total',
    help: 'Batches a platform push node gave up on.',
    kind: 'push',
    type: 'counter',
    value: (s) => s.counters.batchesFailed,
  },
];

function sumStatus(entry: SourceEntry, status: number): number {
  return entry.meter.requests.get(status) ?? 0;
}
