/**
 * A node's counts as a source of the operator's view (lib/metrics): read when
 * a monitor is scraped, nothing per message. Keyed by the node's id, which a
 * deploy keeps, so the counters go on across deploys; its name is a label.
 */
import type { Node } from 'node-red';
import { metricSources, type SourceKind } from '../../lib/metrics';

export function registerCounts(
  node: Node & { name?: string },
  kind: SourceKind,
  read: () => Record<string, number>,
  /** Values now (how many are present), besides the totals. */
  readGauges?: () => Record<string, number>,
): void {
  const source = { read: () => ({ counters: read(), gauges: readGauges?.() }) };
  const registration = metricSources.register(kind, node.id, source, { name: node.name ?? '' });
  node.on('close', () => registration.unregister());
}
