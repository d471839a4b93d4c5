/**
 * msg.alarm as the alert reads it: what detection-alarm adds to a notice
 * (its sentence for people, the mail link, the Telegram buttons, and for a
 * summary without an event its subject). Read leniently: a part that is not
 * what the alarm node sends is left out, never an error, so a flow's own
 * msg.alarm of another shape only loses what cannot be used.
 */
import { z } from 'zod';

/** Telegram's limit of a button's callback_data, in bytes (Bot API, InlineKeyboardButton). */
export const CALLBACK_DATA_MAX_BYTES = 64;

const optional = <T extends z.ZodType>(schema: T) => schema.optional().catch(undefined);

const AlertButtonSchema = z.object({
  text: z.string().trim().min(1),
  data: z
    .string()
    .min(1)
    .refine((data) => Buffer.byteLength(data) <= CALLBACK_DATA_MAX_BYTES),
});

const AlarmNoticeSchema = z.object({
  /** Why the notice was sent: opened, reminder, escalation, resumed, armed, untracked. */
  notice: optional(z.string()),
  /** A sentence for people; '' for none. */
  text: optional(z.string()),
  /** The mail link's page. */
  link: optional(z.string().regex(/^https?:\/\/\S+$/i)),
  buttons: optional(z.array(AlertButtonSchema).max(8)),
  /** A summary's subject: it comes without an event. */
  subject: optional(z.string()),
});

export type AlertButton = z.infer<typeof AlertButtonSchema>;
export type AlertAlarm = z.infer<typeof AlarmNoticeSchema>;

/** The parts of msg.alarm an alert uses, or undefined when `value` is no object. */
export function readAlarmNotice(value: unknown): AlertAlarm | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const read = AlarmNoticeSchema.safeParse(value);
  return read.success ? read.data : undefined;
}

/** Whether the notice asks again for an answer (its subject says so). */
export function isRepeatNotice(notice: AlertAlarm | undefined): notice is AlertAlarm & { notice: 'reminder' | 'escalation' } {
  return notice?.notice === 'reminder' || notice?.notice === 'escalation';
}
