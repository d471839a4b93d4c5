/**
 * detection-sample: on any input, emits a sample detection event with the
 * message contract of detection-in. Built in (lib/sample.ts; small real
 * pictures, or the bridge's two-byte fillers) or fetched from a bridge's
 * GET /api/v1/webhook-models/{face,lpr} (lib/bridge-client.ts), sent as the
 * bridge answered. A thin adapter.
 */
import type { NodeAPI, NodeDef, NodeMessageInFlow } from 'node-red';
import type { Agent } from 'undici';
import { createBridgeAgent, DEFAULT_SAMPLE_TIMEOUT_MS, fetchSample, sampleUrl } from '../../lib/events/sample-client';
import { buildSampleEvent, isEventKind, SAMPLE_IMAGE_MODES, type SampleImageMode } from '../../lib/events/sample';
import { detectionView } from '../../lib/events/detection-view';
import type { EventKind, SchemaError } from '../../lib/events/schemas';
import { choiceOption, dialogOptions, field, flagOption, numberOption } from '../../lib/options';
import { coded, flowError, nodeText } from '../shared/i18n';
import { registerNode } from '../shared/register';
import { failConfig } from '../shared/status';
import { shownValue, typedLabel, typedReader, type PropertyReader, type PropertyUtil } from '../shared/typed-property';

type SourceOption = 'builtin' | 'bridge';

/** The Kind TypedInput's own type: one of the kinds, fixed in the node. */
const FIXED_KIND = 'kind';

interface DetectionSampleDef extends NodeDef {
  /** A kind (`kindType` "kind"), or where to read it: a msg, flow or global property, an environment variable. */
  kind: string;
  kindType: string;
  source: SourceOption;
  images?: SampleImageMode;
  baseUrl: string;
  insecure: boolean;
  timeout: number | string;
}

/** Longest timeout the dialog accepts, in seconds. */
const MAX_TIMEOUT_S = 600;
/** Schema errors listed in a warning; the rest are counted. */
const WARN_ERRORS = 5;

/** A kind read from a message: face when not set, null when set to something else. */
function kindFromValue(value: unknown): EventKind | null {
  if (value === undefined || value === null || value === '') return 'face';
  const text = typeof value === 'string' ? value.trim().toLowerCase() : value;
  return isEventKind(text) ? text : null;
}

export = function register(RED: NodeAPI): void {
  registerNode<DetectionSampleDef>(RED, 'detection-sample', (node, config) => {
    const t = nodeText(RED, 'detection-sample');
    const options = dialogOptions(
      {
        kind: field(choiceOption<EventKind>(['face', 'lpr']), 'face'),
        source: field(choiceOption<SourceOption>(['builtin', 'bridge']), 'builtin'),
        // pictures also for flows saved before the option existed: an image flow works at once
        images: field(choiceOption<SampleImageMode>(SAMPLE_IMAGE_MODES), 'pictures'),
        timeout: field(numberOption({ above: 0 }), DEFAULT_SAMPLE_TIMEOUT_MS / 1000),
        insecure: field(flagOption(), false),
      },
      config,
    );
    const { source, images } = options;
    const timeoutMs = Math.min(options.timeout, MAX_TIMEOUT_S) * 1000;
    const baseUrl = String(config.baseUrl ?? '').trim();
    const kindType = config.kindType || FIXED_KIND;
    const fixed = kindType === FIXED_KIND;
    // a fixed kind as the dialog allows it (face when it is not one), or where it is read (msg.kind when not said)
    const kindValue = fixed ? options.kind : String(config.kind || 'kind');
    const kindSource = fixed ? kindValue : typedLabel(kindType, kindValue);
    let readKind: PropertyReader;
    try {
      readKind = typedReader(RED.util as unknown as PropertyUtil, node, kindValue, kindType, FIXED_KIND);
    } catch (err) {
      failConfig(
        node,
        t('status.kind-invalid'),
        t('errors.kind-property', { property: kindSource, message: (err as Error).message }),
        'ERR_SAMPLE_KIND',
      );
      return;
    }

    let sent = 0;
    let agent: Agent | undefined;
    const closing = new AbortController();
    const warned = new Set<EventKind>();

    const idleText = t(source === 'bridge' ? 'status.idle-bridge' : 'status.idle', { kind: kindSource });
    node.status({ fill: 'grey', shape: 'ring', text: idleText });

    /** What is wrong with the bridge URL, translated; undefined when it is usable. */
    function urlProblem(): string | undefined {
      if (!baseUrl) return t('errors.no-url');
      try {
        sampleUrl(baseUrl, 'face');
        return undefined;
      } catch (err) {
        return flowError(RED, err).message;
      }
    }

    if (source === 'bridge') {
      const problem = urlProblem(); // checked once, at deploy
      if (problem) {
        node.status({ fill: 'red', shape: 'ring', text: t('status.config') });
        node.error(problem);
      } else {
        agent = createBridgeAgent({ insecure: options.insecure, timeoutMs });
      }
    }

    /** Sets the contract properties on the incoming msg (Node-RED reuses it). */
    function deliver(msg: NodeMessageInFlow, event: Record<string, unknown>, kind: EventKind, receivedAt: string): void {
      const inner = (event.payload ?? {}) as Record<string, unknown>;
      const out = msg as unknown as Record<string, unknown>;
      out.payload = event;
      out.topic = typeof event.publishType === 'string' ? event.publishType : undefined;
      out.kind = kind;
      out.messageId = typeof inner.messageId === 'string' ? inner.messageId : undefined;
      out.resent = inner.resentEvent === true;
      out.receivedAt = receivedAt;
      out.detection = detectionView(event, kind, Date.parse(receivedAt));
    }

    function showSent(kind: EventKind, valid: boolean): void {
      const text = t(valid ? 'status.sent' : 'status.sent-invalid', { kind, count: sent });
      node.status({ fill: valid ? 'green' : 'yellow', shape: 'dot', text });
    }

    function showError(): void {
      node.status({ fill: 'red', shape: 'ring', text: t('status.error', { count: sent }) });
    }

    function warnSchema(kind: EventKind, url: string, errors: SchemaError[]): void {
      if (warned.has(kind)) return;
      warned.add(kind);
      const list = errors
        .slice(0, WARN_ERRORS)
        .map((e) => `${e.path}: ${e.message}`)
        .join('; ');
      const more = errors.length > WARN_ERRORS ? t('warnings.more', { count: errors.length - WARN_ERRORS }) : '';
      node.warn(t('warnings.schema', { kind, url, count: errors.length, errors: list + more }));
    }

    node.on('input', (msg, send, done) => {
      readKind(msg, (err, value) => {
        if (err) {
          showError();
          done(coded(t('errors.kind-property', { property: kindSource, message: err.message }), 'ERR_SAMPLE_KIND'));
          return;
        }
        const kind = kindFromValue(value);
        if (kind === null) {
          showError();
          done(coded(t('errors.kind-value', { property: kindSource, value: shownValue(value) }), 'ERR_SAMPLE_KIND'));
          return;
        }
        sample(msg, kind, send, done);
      });
    });

    function sample(msg: NodeMessageInFlow, kind: EventKind, send: (msg: NodeMessageInFlow) => void, done: (err?: Error) => void): void {
      if (source === 'builtin') {
        const now = new Date();
        deliver(msg, buildSampleEvent(kind, { now, images }), kind, now.toISOString());
        sent++;
        showSent(kind, true);
        send(msg);
        done();
        return;
      }

      if (!agent) {
        // the URL was refused at deploy (or the node is closing)
        showError();
        done(coded(urlProblem() ?? t('errors.closed'), 'ERR_BRIDGE_URL'));
        return;
      }

      node.status({ fill: 'blue', shape: 'ring', text: t('status.fetching', { kind }) });
      fetchSample(baseUrl, kind, { dispatcher: agent, timeoutMs, signal: closing.signal }).then(
        (fetched) => {
          if (closing.signal.aborted) return done();
          deliver(msg, fetched.event, fetched.kind, new Date().toISOString());
          sent++;
          const valid = fetched.errors.length === 0;
          if (!valid) warnSchema(kind, fetched.url, fetched.errors);
          showSent(fetched.kind, valid);
          send(msg);
          done();
        },
        (err: unknown) => {
          // A request cut short by a redeploy is not an error of the flow.
          if (closing.signal.aborted) return done();
          showError();
          done(flowError(RED, err));
        },
      );
    }

    node.on('close', (_removed: boolean, done: () => void) => {
      closing.abort();
      const pool = agent;
      agent = undefined;
      node.status({});
      if (!pool) return done();
      pool.destroy().then(done, done);
    });
  });
};
