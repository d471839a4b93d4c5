/**
 * detection-alert: turns a detection event into the message a common sender
 * takes (e-mail, Telegram, ntfy, Pushover, Gotify, Slack, Teams), its text
 * from templates of fields, its picture chosen as detection image chooses it.
 * A thin adapter: the text, the picture and each sender's shape are lib/alert.
 * msg.payload is replaced (the event is not needed after it, and a small
 * message is cheap to clone on a fan-out); every other property stays.
 * A notice of detection-alarm (msg.alarm) adds its sentence, its link and
 * its buttons; its summaries come without an event and are built from it.
 */
import type { NodeAPI, NodeDef, NodeMessage } from 'node-red';
import {
  alertPicture,
  alertTags,
  alertValues,
  buildAlert,
  isRepeatNotice,
  isUrgent,
  readAlarmNotice,
  renderTemplate,
  unknownFields,
  type AlertAlarm,
  type AlertLink,
  type AlertPicture,
  type AlertSender,
} from '../../lib/alert';
import { viewOfEvent, chooseTagPrefix } from '../../lib/events';
import { DEFAULT_CROP_ORDER, parseCropList, type PickOptions } from '../../lib/image';
import { nodeOptions, type SavedOptions } from '../../lib/config';
import { coded, flowError, nodeText, statusText } from '../shared/i18n';
import { failConfig, throttledStatus } from '../shared/status';
import { propertyReader, typedLabel, type PropertyReader, type PropertyUtil } from '../shared/typed-property';
import { registerNode } from '../shared/register';
import { tagPrefixOf } from '../shared/events-bridge-node';

interface DetectionAlertDef extends NodeDef, SavedOptions<'detection-alert'> {
  property: string;
  propertyType: string;
  /** e-mail: recipients; empty: the e-mail node's own. */
  to?: string;
  /** e-mail: the sender's address; empty: the e-mail node's login. */
  from?: string;
  /** Telegram: the chat id (a number, or @channel). */
  chatId?: string;
  /** Templates; empty: the default of the event's kind, from the catalog. */
  subject?: string;
  body?: string;
  crops: string[] | string;
  tagPrefix?: string;
  bridge?: string;
}

interface AlertCredentials {
  pushoverToken?: string;
  pushoverUser?: string;
}

type Send = (msg: NodeMessage) => void;
type Done = (err?: Error) => void;
type AlertMessage = NodeMessage & Record<string, unknown>;

export = function register(RED: NodeAPI): void {
  registerNode<DetectionAlertDef, AlertCredentials>(
    RED,
    'detection-alert',
    (node, config) => {
      const t = nodeText(RED, 'detection-alert');
      const s = statusText(RED, 'detection-alert');
      const choices = nodeOptions('detection-alert', config);
      const sender = choices.sender as AlertSender;

      const property = config.property || 'payload';
      const propertyType = config.propertyType || 'msg';
      const propertyLabel = typedLabel(propertyType, property);
      const crops =
        config.crops === undefined || config.crops === null || config.crops === '' ? [...DEFAULT_CROP_ORDER] : parseCropList(config.crops);
      const pick: PickOptions = { crops: crops ?? [], plateMode: 'first', face: choices.faceImage, faceFallback: choices.faceFallback };
      const subjectTemplate = typeof config.subject === 'string' ? config.subject.trim() : '';
      const bodyTemplate = typeof config.body === 'string' && config.body.trim() !== '' ? config.body : '';
      const chatId = typeof config.chatId === 'string' ? config.chatId.trim() : '';
      const to = typeof config.to === 'string' ? config.to.trim() : '';
      const from = typeof config.from === 'string' ? config.from.trim() : '';
      const keys = { token: node.credentials?.pushoverToken ?? '', user: node.credentials?.pushoverUser ?? '' };

      // What keeps the node from running: said in its status (a catalog key) and to every message (CONFIG).
      let problem: { status: string; text: string } | undefined;
      const unknown = [...unknownFields(subjectTemplate), ...unknownFields(bodyTemplate)].filter((name, i, all) => all.indexOf(name) === i);
      if (unknown.length > 0)
        problem = { status: 'status.unknown-field', text: t('errors.unknown-field', { fields: unknown.map((f) => `{${f}}`).join(', ') }) };
      else if (!crops) problem = { status: 'status.config', text: t('errors.crops', { crops: String(config.crops) }) };
      else if (sender === 'telegram' && chatId === '') problem = { status: 'status.chat-id', text: t('errors.chat-id') };
      else if (sender === 'pushover' && (keys.token === '' || keys.user === ''))
        problem = { status: 'status.pushover-keys', text: t('errors.pushover-keys') };
      const tagPrefix = problem ? '' : chooseTagPrefix(config.tagPrefix, config.bridge, (id) => tagPrefixOf(RED, id));
      if (typeof tagPrefix !== 'string') {
        if (tagPrefix.problem === 'own')
          problem = { status: 'status.tag-prefix', text: t('errors.tag-prefix', { prefix: String(config.tagPrefix) }) };
        else if (tagPrefix.problem === 'no-bridge') problem = { status: 'status.no-bridge', text: t('errors.no-bridge') };
        else problem = { status: 'status.tag-prefix', text: t('errors.bridge-tag-prefix', { message: tagPrefix.message }) };
      }
      let read: PropertyReader | undefined;
      if (!problem) {
        try {
          read = propertyReader(RED.util as unknown as PropertyUtil, node, property, propertyType);
        } catch (err) {
          problem = { status: 'status.config', text: t('errors.property', { property: propertyLabel, message: (err as Error).message }) };
        }
      }
      if (problem || !read || typeof tagPrefix !== 'string') {
        failConfig(node, s(problem?.status ?? 'status.config'), problem?.text ?? '', 'CONFIG');
        return;
      }
      const readEvent = read;
      const prefix = tagPrefix;

      const counts = { alerts: 0, without: 0 };
      let lastWithout = false;
      const showStatus = throttledStatus(node, () => ({ fill: lastWithout ? 'yellow' : 'green', shape: 'dot', text: s('status.counts', counts) }));
      /** The alarm's subject (a reminder or escalation says so) and body (its sentence first). */
      const alarmText = (alarm: AlertAlarm, subject: string, body: string): { subject: string; body: string } => ({
        subject: isRepeatNotice(alarm) ? t(`alarm.${alarm.notice}`, { subject }) : subject,
        body: alarm.text ? (body === '' ? alarm.text : `${alarm.text}\n${body}`) : body,
      });
      const alarmLink = (alarm: AlertAlarm | undefined): AlertLink | undefined =>
        alarm?.link ? { url: alarm.link, label: t('alarm.link-label'), line: t('alarm.link', { url: alarm.link }) } : undefined;
      const notes = {
        unsupported: t('picture.unsupported'),
        tooLarge: sender === 'pushover' || sender === 'teams' ? t('picture.too-large', { service: t(`service.${sender}`) }) : '',
      };

      node.on('input', (msg: NodeMessage, send: Send, done: Done) => {
        readEvent(msg, (readErr, event) => {
          if (readErr) {
            done(coded(t('errors.read', { property: propertyLabel, message: flowError(RED, readErr).message }), 'PROPERTY_READ'));
            return;
          }
          try {
            const m = msg as AlertMessage;
            const alarm = readAlarmNotice(m.alarm);
            const view = viewOfEvent(event);
            if (!view && typeof alarm?.subject !== 'string') {
              done(coded(t('errors.not-an-event', { property: propertyLabel }), 'NOT_A_DETECTION'));
              return;
            }
            // a summary of alarms (a snooze ended, armed again, a reminder whose event was lost): its own subject and sentence
            let subject = alarm?.subject ?? '';
            let body = '';
            let picture: AlertPicture | null = null;
            if (view) {
              const match = m.match as { text?: unknown } | undefined;
              const values = alertValues(view, { tagPrefix: prefix, why: match?.text, kindName: t(`kind.${view.kind}`) });
              subject = renderTemplate(subjectTemplate || t(`default.subject-${view.kind}`), values)
                .replace(/\s*\n\s*/g, ' ')
                .trim();
              body = renderTemplate(bodyTemplate || t('default.body'), values);
              // Without a picture the alert still goes out, saying why it has none.
              if (choices.picture) {
                const found = alertPicture(event, pick);
                if (found.ok) picture = found.picture;
                else {
                  if (found.reason === 'unreadable') node.warn(t('warn.unreadable', { path: found.path }));
                  const note = t(found.reason === 'unreadable' ? 'picture.unreadable' : 'picture.none');
                  body = body === '' ? note : `${body}\n${note}`;
                }
              }
            }
            if (alarm) ({ subject, body } = alarmText(alarm, subject, body));
            const urgent = isUrgent(m.priority);
            const built = buildAlert(
              sender,
              { subject, body, picture, urgent, tags: view ? alertTags(view, prefix) : [], link: alarmLink(alarm), buttons: alarm?.buttons },
              {
                to,
                from,
                chatId: m.chatId !== undefined && m.chatId !== null && m.chatId !== '' ? (m.chatId as string | number) : chatId,
                pushover: keys,
                notes,
              },
            );
            for (const [name, value] of Object.entries(built.props)) {
              if (value === undefined) delete m[name];
              else m[name] = value;
            }
            const attached = built.picture;
            m.alert = {
              sender,
              subject,
              text: built.body,
              picture: attached ? { filename: attached.filename, contentType: attached.contentType, bytes: attached.data.length } : null,
              urgent,
            };
            counts.alerts++;
            // Slack takes no picture at all: by design, not a picture missing.
            lastWithout = Boolean(view) && choices.picture && !attached && built.dropped !== 'unsupported';
            if (lastWithout) counts.without++;
            showStatus();
            send(m);
            done();
          } catch (err) {
            done(flowError(RED, err));
          }
        });
      });
    },
    { credentials: { pushoverToken: { type: 'password' }, pushoverUser: { type: 'password' } } },
  );
};
