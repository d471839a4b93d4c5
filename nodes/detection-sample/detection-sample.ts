/**
 * detection-sample: on any input, emits a sample detection event with the
 * message contract of detection-in (lib/events/message.ts). Built in (lib/bridge/sample.ts; small
 * real pictures, or the bridge's two-byte fillers) or fetched from a bridge's
 * GET /api/v1/webhook-models/{face,lpr} (lib/bridge/client.ts), sent
 * as the bridge answered. The bridge is an events-bridge configuration node
 * (its address, TLS and timeout; the endpoints are anonymous, so its token is
 * not sent); a node saved before that keeps its own Bridge URL until one is
 * chosen. A thin adapter.
 */
import type { NodeAPI, NodeDef, NodeMessageInFlow } from 'node-red';
import type { Dispatcher } from 'undici';
import { fetchSample, sampleUrl, buildSampleEvent, isEventKind } from '../../lib/bridge';
import { createServerAgent } from '../../lib/http';
import { eventMessage, type EventKind, type SchemaError } from '../../lib/events';
import { nodeOptions, secondsMs, type SavedOptions } from '../../lib/config';
import { eventsBridgeOf } from '../shared/events-bridge-node';
import { coded, flowError, nodeText, statusText } from '../shared/i18n';
import { registerNode } from '../shared/register';
import { failConfig } from '../shared/status';
import { shownValue, typedLabel, typedReader, type PropertyReader, type PropertyUtil } from '../shared/typed-property';

/** The Kind TypedInput's own type: one of the kinds, fixed in the node. */
const FIXED_KIND = 'kind';

interface DetectionSampleDef extends NodeDef, Omit<SavedOptions<'detection-sample'>, 'kind'> {
  /** A kind (`kindType` "kind": the table's choice), or where to read it: a msg, flow or global property, an environment variable. */
  kind: string;
  kindType: string;
  /** The events-bridge configuration node to fetch from. */
  bridge?: string;
  /** Saved before \`bridge\` existed: used while no bridge is chosen. */
  baseUrl: string;
}

/** Where fetched samples come from: a base URL, the pool to send through, and the timeout of one fetch. */
interface FetchTarget {
  base: string;
  dispatcher: Dispatcher;
  timeoutMs: number;
  /** Destroyed on close: the node's own pool (not the bridge's). */
  own?: { destroy(): Promise<void> };
}

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
    const s = statusText(RED, 'detection-sample');
    const options = nodeOptions('detection-sample', config);
    const { source, images } = options;
    const timeoutMs = secondsMs(options.timeout);
    const bridgeId = config.bridge && config.bridge !== '_ADD_' ? config.bridge : '';
    const ownUrl = String(config.baseUrl ?? '').trim();
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
        s('status.kind-invalid'),
        t('errors.kind-property', { property: kindSource, message: (err as Error).message }),
        'ERR_SAMPLE_KIND',
      );
      return;
    }

    /** The chosen bridge's client, else the node's own saved URL (a flow saved before bridges), else why neither works. */
    function fetchTarget(): FetchTarget | Error {
      if (bridgeId) {
        const client = eventsBridgeOf(RED, bridgeId) ?? coded(t('errors.bridge-missing'), 'ERR_SAMPLE_BRIDGE');
        if (client instanceof Error) return client;
        return { base: client.base.display, dispatcher: client.dispatcher, timeoutMs: client.timeoutMs };
      }
      if (!ownUrl) return coded(t('errors.no-bridge'), 'ERR_SAMPLE_BRIDGE');
      try {
        sampleUrl(ownUrl, 'face');
      } catch (err) {
        return flowError(RED, err);
      }
      const agent = createServerAgent({ insecure: options.insecure, timeoutMs });
      return { base: ownUrl, dispatcher: agent, timeoutMs, own: agent };
    }

    let target: FetchTarget | undefined;
    if (source === 'bridge') {
      const found = fetchTarget(); // checked once, at deploy
      if (found instanceof Error) {
        const code = (found as Error & { code?: unknown }).code;
        const status = bridgeId ? 'status.config-bridge' : ownUrl ? 'status.config' : 'status.no-bridge';
        failConfig(node, s(status), found.message, typeof code === 'string' ? code : 'ERR_SAMPLE_BRIDGE');
        return;
      }
      target = found;
    }

    let sent = 0;
    const closing = new AbortController();
    const warned = new Set<EventKind>();

    const idleText = s(source === 'bridge' ? 'status.idle-bridge' : 'status.idle', { kind: kindSource });
    node.status({ fill: 'grey', shape: 'ring', text: idleText });

    /** Sets the contract's properties on the incoming msg (Node-RED reuses it). */
    function deliver(msg: NodeMessageInFlow, event: unknown, kind: EventKind, receivedAt: string): void {
      Object.assign(msg, eventMessage(event, kind, { receivedAt }));
    }

    function showSent(kind: EventKind, valid: boolean): void {
      const text = s(valid ? 'status.sent' : 'status.sent-invalid', { kind, count: sent });
      node.status({ fill: valid ? 'green' : 'yellow', shape: 'dot', text });
    }

    function showError(): void {
      node.status({ fill: 'red', shape: 'ring', text: s('status.error', { count: sent }) });
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

      if (!target || closing.signal.aborted) {
        showError();
        done(coded(t('errors.closed'), 'ERR_SAMPLE_CLOSED'));
        return;
      }

      node.status({ fill: 'blue', shape: 'ring', text: s('status.fetching', { kind }) });
      const { base, dispatcher } = target;
      fetchSample(base, kind, { dispatcher, timeoutMs: target.timeoutMs, signal: closing.signal }).then(
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
      const pool = target?.own;
      target = undefined;
      node.status({});
      if (!pool) return done();
      pool.destroy().then(done, done);
    });
  });
};
