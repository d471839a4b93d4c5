/**
 * detection-filter: passes the events that hold the rules (all, or any) on
 * output 1, the others on output 2 when it is turned on. A thin adapter: the
 * rules are lib/events/filter.ts, the view they look at lib/events/detection-view.ts,
 * plate matching lib/plates. The account's tag prefix is the node's own, else
 * that of the events bridge it names. A message that passes gets msg.match
 * (each rule that held, and why: lib/events/filter-explain.ts), and
 * msg.priority 'urgent' when a rule marked urgent held; the dialog's preview
 * asks preview.ts.
 * Time rules judge the event's detection time (lib/events/time-window.ts) in its
 * own zone, else the node's Time zone, else Node-RED's.
 */
import type { NodeAPI, NodeDef, NodeMessage } from 'node-red';
import { completion } from '../../lib/delivery';
import {
  viewOfEvent,
  compileFilter,
  detectionTime,
  type FilterOutcome,
  type ReadProblem,
  matchExplanation,
  type MatchExplanation,
  chooseTagPrefix,
} from '../../lib/events';
import { nodeOptions, type SavedOptions } from '../../lib/config';
import { coded, flowError, nodeText, statusText as statusTextOf, translate, translator } from '../shared/i18n';
import { failConfig, throttledStatus } from '../shared/status';
import { propertyReader, type PropertyReader, type PropertyUtil } from '../shared/typed-property';
import { registerNode } from '../shared/register';
import { tagPrefixOf } from '../shared/events-bridge-node';
import { clockOf } from '../shared/clock';
import { servePlatePreview } from './preview';

interface DetectionFilterDef extends NodeDef, SavedOptions<'detection-filter'> {
  property: string;
  propertyType: string;
  rules: unknown;
  /** The account's tag prefix typed in this node; empty: the bridge's, if one is chosen. */
  tagPrefix?: string;
  /** An events-bridge configuration node whose tag prefix applies (optional). */
  bridge?: string;
  /** The IANA zone time rules judge events in that carry none; empty: Node-RED's own. */
  timeZone?: string;
  /** The look-alike classes as typed (`0ODQ 1I …`); missing: the default ones. */
  plateClasses?: unknown;
}

type Send = (msg: NodeMessage | Array<NodeMessage | null>) => void;
/** A message that passed: why (msg.match), and how urgent (msg.priority, which other nodes read). */
type ExplainedMessage = NodeMessage & { match?: MatchExplanation; priority?: unknown };

export = function register(RED: NodeAPI): void {
  servePlatePreview(RED);
  registerNode<DetectionFilterDef>(RED, 'detection-filter', (node, config) => {
    const t = nodeText(RED, 'detection-filter');
    // a status without figures goes as its key, for the editor to show in its own language
    const s = statusTextOf(RED, 'detection-filter');
    const util = RED.util as unknown as PropertyUtil;

    /** The prefix typed in this node, else the chosen bridge's, else none (lib's rule); or why it cannot be used (status, error). */
    function tagPrefixFor(def: DetectionFilterDef): string | { status: string; problem: string } {
      const chosen = chooseTagPrefix(def.tagPrefix, def.bridge, (id) => tagPrefixOf(RED, id));
      if (typeof chosen === 'string') return chosen;
      if (chosen.problem === 'own') return { status: s('status.tag-prefix'), problem: t('errors.tag-prefix', { prefix: String(def.tagPrefix) }) };
      if (chosen.problem === 'no-bridge') return { status: s('status.no-bridge'), problem: t('errors.no-bridge') };
      return { status: s('status.tag-prefix'), problem: t('errors.bridge-tag-prefix', { message: chosen.message }) };
    }

    const property = config.property || 'payload';
    const propertyType = config.propertyType || 'msg';
    const { combine, noMatchOutput, plateLookalikes, plateExtraMissing, plateSimilar } = nodeOptions('detection-filter', config);

    const tagPrefix = tagPrefixFor(config);
    if (typeof tagPrefix !== 'string') {
      failConfig(node, tagPrefix.status, tagPrefix.problem, 'CONFIG');
      return;
    }
    const plates = {
      lookalikes: Number(plateLookalikes),
      extraMissing: Number(plateExtraMissing),
      classes: typeof config.plateClasses === 'string' ? config.plateClasses : undefined,
      similar1Plate: plateSimilar,
    };
    const compiled = compileFilter(config.rules, combine, {
      tagPrefix,
      plates,
      timeZone: typeof config.timeZone === 'string' ? config.timeZone : '',
      // time windows from env are read once, at deploy, as Node-RED reads env (the flow's, the group's, the process's)
      env: (name): unknown => RED.util.evaluateNodeProperty(name, 'env', node, {}),
    });
    if (!compiled.ok) {
      const problems = compiled.problems.map((p) => translate(RED, p));
      failConfig(node, problems[0], t('errors.config', { problems: problems.join('; ') }), 'CONFIG');
      return;
    }
    const filter = compiled.filter;

    let readEvent: PropertyReader;
    const readLists: PropertyReader[] = [];
    try {
      readEvent = propertyReader(util, node, property, propertyType);
    } catch (err) {
      failConfig(
        node,
        s('status.config'),
        t('errors.property', { property: `${propertyType}:${property}`, message: (err as Error).message }),
        'CONFIG',
      );
      return;
    }
    for (const read of filter.reads) {
      try {
        readLists.push(propertyReader(util, node, read.property, read.source));
      } catch (err) {
        const problem = t(read.type === 'time' ? 'errors.windows-property' : 'errors.list-property', {
          position: read.position,
          property: `${read.source}.${read.property}`,
          message: (err as Error).message,
        });
        failConfig(
          node,
          s(read.type === 'time' ? 'status.windows-property' : 'status.list-property', { position: read.position }),
          problem,
          'CONFIG',
        );
        return;
      }
    }

    // The label shows the rules of a node without a name; a named one shows them in its status.
    const inLanguage = translator(RED);
    const summary = config.name ? filter.summary(inLanguage) : '';
    const counts = { matched: 0, not: 0 };
    const statusText = (): string => (summary ? s('status.counts-rules', { ...counts, rules: summary }) : s('status.counts', counts));
    const showStatus = throttledStatus(node, () => ({ fill: 'green', shape: 'dot', text: statusText() }));
    node.status({ fill: 'grey', shape: 'ring', text: statusText() });

    // A missing or unusable list (or time windows) holds for no event: said once per rule and problem, not per message.
    const warned = new Set<string>();
    const MAX_WARNED = 100;
    function warnOnce(key: string, text: () => string): void {
      if (warned.has(key) || warned.size >= MAX_WARNED) return;
      warned.add(key);
      node.warn(text());
    }
    function readWarning(index: number, problem: ReadProblem): string {
      const read = filter.reads[index];
      const where = { position: read.position, property: `${read.source}.${read.property}` };
      if (problem.kind === 'windows') return t('warn.windows-invalid', { ...where, problem: translate(RED, problem.problem) });
      return t(`warn.${read.type === 'time' ? 'windows' : 'list'}-${problem.kind}`, where);
    }
    function checkRead(index: number, value: unknown): void {
      const problem = filter.readProblem(index, value);
      if (!problem) return;
      const key = `${index} ${problem.kind === 'windows' ? `${problem.problem.key} ${JSON.stringify(problem.problem.params)}` : problem.kind}`;
      warnOnce(key, () => readWarning(index, problem));
    }

    // Time rules judge when the event happened; an event without a readable time, when it is handled here.
    const clock = clockOf(RED);
    function timeOf(event: unknown) {
      if (!filter.judgesTime) return undefined;
      const when = detectionTime(event, clock.now());
      if (!when.fromEvent) warnOnce('no-time', () => t('warn.no-time'));
      return when;
    }

    function decide(msg: NodeMessage, send: Send, outcome: FilterOutcome): void {
      if (outcome.passed) {
        counts.matched++;
        // why it passed (the message is not copied: one small object more on it); no rules, nothing held to say why
        if (outcome.rules.length > 0) {
          const passed = msg as ExplainedMessage;
          passed.match = matchExplanation(outcome, inLanguage);
          // a priority the flow set is the flow's: left as it is
          if (outcome.urgent && (passed.priority === undefined || passed.priority === null || passed.priority === '')) passed.priority = 'urgent';
        }
        send(noMatchOutput ? [msg, null] : msg);
      } else {
        counts.not++;
        if (noMatchOutput) send([null, msg]);
        // dropped here on purpose: finished, so its receiver does not emit it again
        else completion.finish(msg);
      }
      showStatus();
    }

    node.on('input', (msg: NodeMessage, send: Send, done: (err?: Error) => void) => {
      readEvent(msg, (err, value) => {
        if (err) {
          done(coded(t('errors.read', { property: `${propertyType}:${property}`, message: flowError(RED, err).message }), 'PROPERTY_READ'));
          return;
        }
        const view = viewOfEvent(value);
        const when = view ? timeOf(value) : undefined;
        if (!view || readLists.length === 0) {
          decide(msg, send, filter.evaluate(view, [], when));
          done();
          return;
        }
        // Lists from flow or global context may come from a persistent store, asynchronously.
        const lists: unknown[] = new Array(readLists.length);
        let pending = readLists.length;
        let failed = false;
        readLists.forEach((readList, index) =>
          readList(msg, (listErr, list) => {
            if (failed) return;
            if (listErr) {
              failed = true;
              const read = filter.reads[index];
              const where = `${read.source}.${read.property}`;
              done(
                coded(
                  t(read.type === 'time' ? 'errors.read-windows' : 'errors.read-list', {
                    position: read.position,
                    property: where,
                    message: flowError(RED, listErr).message,
                  }),
                  'PROPERTY_READ',
                ),
              );
              return;
            }
            checkRead(index, list);
            lists[index] = list;
            if (--pending > 0) return;
            decide(msg, send, filter.evaluate(view, lists, when));
            done();
          }),
        );
      });
    });
  });
};
