/**
 * detection-enroll: enrolls, unenrolls, checks and lists plates and faces on
 * an events bridge's watch list, through an events-bridge configuration
 * node (lib/bridge/client.ts). A thin adapter: the values come from
 * TypedInputs, lib/bridge/enroll-schemas.ts builds and checks the body.
 *
 * A list goes out one message per item, with msg.parts, so a join node
 * rebuilds the whole list and a flow can act on each item as it comes; the
 * node holds one page of the answer at a time (and, between pages, the one
 * item whose place in the list is not known to be the last yet).
 */
import type { NodeAPI, NodeDef, NodeMessage, NodeMessageInFlow } from 'node-red';
import {
  faceBody,
  plateBody,
  readExternalId,
  ENROLL_ACTIONS,
  type EnrollAction,
  type EnrollKind,
  type MonitoredItem,
  type BridgeAnswer,
  type EventsBridgeClient,
} from '../../lib/bridge';
import { TransportError } from '../../lib/http';
import type { Message } from '../../lib/core';
import { nodeOptions, type SavedOptions } from '../../lib/config';
import { eventsBridgeOf } from '../shared/events-bridge-node';
import { coded, flowError, nodeText, statusText, translate } from '../shared/i18n';
import { registerNode } from '../shared/register';
import { failConfig, throttledStatus } from '../shared/status';
import { propertyReader, readProperty, shownValue, typedLabel, typedReader, type PropertyReader, type PropertyUtil } from '../shared/typed-property';

/** The Action and Kind TypedInputs' own types: an action, a kind, fixed in the node. */
const FIXED_ACTION = 'action';
const FIXED_KIND = 'kind';

/** The values an enrollment is made of, each read by a TypedInput. */
const VALUES = ['externalId', 'plate', 'photo', 'firstName', 'middleName', 'lastName', 'monitorReason', 'tags', 'additionalFields'] as const;
type Value = (typeof VALUES)[number];

/** Where each value is read when a flow does not say (the dialog's defaults are the same):
 *  a CSV row or a form in msg.payload; the photo where `detection image` puts it. */
const VALUE_DEFAULTS: Readonly<Record<Value, readonly [string, string]>> = {
  externalId: ['payload.externalId', 'msg'],
  plate: ['payload.plate', 'msg'],
  photo: ['image', 'msg'],
  firstName: ['payload.firstName', 'msg'],
  middleName: ['payload.middleName', 'msg'],
  lastName: ['payload.lastName', 'msg'],
  monitorReason: ['payload.monitorReason', 'msg'],
  tags: ['payload.tags', 'msg'],
  additionalFields: ['payload.additionalFields', 'msg'],
};

/** `action` and `kind`: fixed (types "action", "kind"), or where to read them: a msg, flow or global property, an environment variable. */
/** Action and kind are the table's choices when the dialog fixes them (actionType "action", kindType "kind"), else where to read them. */
type DetectionEnrollDef = NodeDef &
  Omit<SavedOptions<'detection-enroll'>, 'action' | 'kind'> & {
    bridge: string;
    action: string;
    actionType?: string;
    kind: string;
    kindType?: string;
  } & Partial<Record<Value | `${Value}Type`, string>>;

type Out = NodeMessageInFlow & Record<string, unknown>;
type Send = (msg: NodeMessage | NodeMessage[]) => void;

/** A kind read from a message: the event kinds, and the words a person may use. */
function kindOf(value: unknown): EnrollKind | undefined {
  const word = typeof value === 'string' ? value.trim().toLowerCase() : '';
  if (word === 'lpr' || word === 'plate' || word === 'plates') return 'lpr';
  if (word === 'face' || word === 'faces') return 'face';
  return undefined;
}

function actionOf(value: unknown): EnrollAction | undefined {
  const word = typeof value === 'string' ? value.trim().toLowerCase() : '';
  return (ENROLL_ACTIONS as readonly string[]).includes(word) ? (word as EnrollAction) : undefined;
}

export = function register(RED: NodeAPI): void {
  registerNode<DetectionEnrollDef>(RED, 'detection-enroll', (node, config) => {
    const t = nodeText(RED, 'detection-enroll');
    const s = statusText(RED, 'detection-enroll');
    const actionType = config.actionType || FIXED_ACTION;
    const kindType = config.kindType || FIXED_KIND;
    // A fixed action or kind as the dialog allows it (enroll, lpr when it is not one), or where it
    // is read (msg.action, msg.kind when no property is named).
    const options = nodeOptions('detection-enroll', config);
    const actionValue = actionType === FIXED_ACTION ? options.action : config.action || 'action';
    const kindValue = kindType === FIXED_KIND ? options.kind : config.kind || 'kind';
    const actionSource = typedLabel(actionType, actionValue);
    const kindSource = typedLabel(kindType, kindValue);
    const found = eventsBridgeOf(RED, config.bridge) ?? new Error(t('errors.no-bridge'));
    if (found instanceof Error) {
      failConfig(node, s('status.config'), found.message, 'ERR_ENROLL_CONFIG');
      return;
    }
    const client: EventsBridgeClient = found;
    const util = RED.util as unknown as PropertyUtil;
    const readers = {} as Record<Value, PropertyReader>;
    let readAction: PropertyReader;
    let readKind: PropertyReader;
    let reading = actionSource;
    try {
      readAction = typedReader(util, node, actionValue, actionType, FIXED_ACTION);
      reading = kindSource;
      readKind = typedReader(util, node, kindValue, kindType, FIXED_KIND);
      for (const name of VALUES) {
        const given = config[name] ?? VALUE_DEFAULTS[name][0];
        const type = config[`${name}Type`] || VALUE_DEFAULTS[name][1];
        reading = typedLabel(type, given);
        // An empty field is a value not given (a msg property reader would read msg.payload).
        readers[name] = given === '' ? (_msg, callback) => callback(null, undefined) : propertyReader(util, node, given, type);
      }
    } catch (err) {
      failConfig(node, s('status.config'), t('errors.property', { property: reading, message: flowError(RED, err).message }), 'ERR_ENROLL_CONFIG');
      return;
    }
    const read = (name: Value, msg: object): Promise<unknown> => readProperty(readers[name], msg);

    const closing = new AbortController();
    const counts = { enrolled: 0, unenrolled: 0, checked: 0, listed: 0, failed: 0 };
    const DONE: Record<Exclude<EnrollAction, 'list'>, keyof typeof counts> = { enroll: 'enrolled', unenroll: 'unenrolled', check: 'checked' };
    let listing = 0;
    let tokenRefused = false;
    let warnedPaging = false;
    const showStatus = throttledStatus(node, () => {
      if (listing > 0) return { fill: 'blue', shape: 'dot', text: s('status.listing', { count: counts.listed }) };
      const parts = (Object.keys(counts) as Array<keyof typeof counts>)
        .filter((k) => counts[k] > 0)
        .map((k) => t(`status.${k}`, { count: counts[k] }));
      const problem = !client.hasToken ? 'no-token' : tokenRefused ? 'token-refused' : undefined;
      // alone, a text without figures goes as its key (the editor's language); joined to counts, as text
      if (problem)
        return { fill: 'red', shape: 'ring', text: parts.length ? [t(`status.${problem}`), ...parts].join(' · ') : s(`status.${problem}`) };
      return { fill: counts.failed ? 'yellow' : 'green', shape: 'dot', text: parts.join(' · ') || s('status.ready') };
    });
    showStatus();

    const inputError = (problems: Message[]): Error => coded(problems.map((p) => translate(RED, p)).join('; '), 'ERR_ENROLL_INPUT');

    /** One message per monitored item, msg.parts counted as in a split array. */
    async function list(msg: Out, kind: EnrollKind, send: Send): Promise<void> {
      const { payload: _payload, ...base } = msg;
      const id = RED.util.generateId();
      let index = 0;
      let held: MonitoredItem | undefined;
      const emit = (item: MonitoredItem, count?: number): void => {
        const out = RED.util.cloneMessage(base) as Out;
        out.payload = item;
        out.externalId = item.externalId;
        out.enrolled = item.enrolled ?? undefined;
        out.parts = <NodeMessageInFlow['parts']>{
          id,
          index: index++,
          type: 'array',
          ...(count === undefined ? {} : { count }),
          ...(msg.parts ? { parts: msg.parts } : {}),
        };
        counts.listed++;
        send(out);
      };
      listing++;
      try {
        for await (const page of client.list(kind, { signal: closing.signal })) {
          if (page.pagingIgnored && !warnedPaging) {
            warnedPaging = true;
            node.warn(t('warnings.paging-ignored', { url: page.url }));
          }
          if (page.last) {
            const total = index + (held ? 1 : 0) + page.items.length;
            if (held) emit(held, total);
            for (const item of page.items) emit(item, total);
            held = undefined;
          } else {
            // The last item of a page waits: it gets parts.count when it turns out to end the list.
            for (const item of page.items) {
              if (held) emit(held);
              held = item;
            }
          }
          showStatus();
        }
      } finally {
        listing--;
      }
    }

    async function handle(msg: Out, send: Send): Promise<void> {
      const actionRead = await readProperty(readAction, msg);
      const action = actionOf(actionRead);
      if (!action) throw coded(t('errors.action', { property: actionSource, value: shownValue(actionRead) }), 'ERR_ENROLL_ACTION');
      const kindRead = await readProperty(readKind, msg);
      const kind = kindOf(kindRead);
      if (!kind) throw coded(t('errors.kind', { property: kindSource, value: shownValue(kindRead) }), 'ERR_ENROLL_KIND');
      msg.action = action;
      msg.kind = kind;
      if (action === 'list') return list(msg, kind, send);

      const externalId = readExternalId(await read('externalId', msg));
      if (!externalId.ok) throw inputError([externalId.problem]);
      msg.externalId = externalId.value;
      let answer: BridgeAnswer;
      if (action === 'enroll') {
        const common = {
          monitorReason: await read('monitorReason', msg),
          tags: await read('tags', msg),
          additionalFields: await read('additionalFields', msg),
        };
        const body =
          kind === 'lpr'
            ? plateBody({ plate: await read('plate', msg), ...common })
            : faceBody({
                photo: await read('photo', msg),
                firstName: await read('firstName', msg),
                middleName: await read('middleName', msg),
                lastName: await read('lastName', msg),
                ...common,
              });
        if (!body.ok) throw inputError(body.problems);
        answer = await client.enroll(kind, externalId.value, body.body, { signal: closing.signal });
      } else if (action === 'unenroll') {
        answer = await client.unenroll(kind, externalId.value, { signal: closing.signal });
      } else {
        const checked = await client.check(kind, externalId.value, { signal: closing.signal });
        msg.enrolled = checked.enrolled;
        answer = checked;
      }
      msg.payload = answer.body;
      msg.statusCode = answer.statusCode;
      counts[DONE[action]]++;
      send(msg);
    }

    node.on('input', (msg: NodeMessageInFlow, send: Send, done: (err?: Error) => void) => {
      const out = msg as Out;
      handle(out, send).then(
        () => {
          tokenRefused = false;
          showStatus();
          done();
        },
        (err: unknown) => {
          if (closing.signal.aborted) return done(); // cut short by a redeploy: not the flow's error
          counts.failed++;
          if (err instanceof TransportError) {
            // Catch nodes see the message: the answer's status and the bridge's reason; msg.payload stays the input.
            if (err.status !== undefined) out.statusCode = err.status;
            if (typeof err.params.reason === 'string') out.reason = err.params.reason;
            if (err.reason === 'unauthorized') tokenRefused = true;
          }
          showStatus();
          done(flowError(RED, err));
        },
      );
    });

    node.on('close', () => {
      closing.abort();
      node.status({});
    });
  });
};
