/** The alert message: its text from a template of fields, its picture, and the message each common sender takes. */
export { ALERT_FIELDS, renderTemplate, unknownFields, type AlertField, type AlertValues } from './template';
export { alertTags, alertValues, isUrgent, type FieldContext } from './fields';
export { alertPicture, type AlertPicture, type PictureResult } from './picture';
export { cut, cutBytes, type AlertInput } from './text';
export {
  ALERT_SENDERS,
  buildAlert,
  emailText,
  telegramChatId,
  TELEGRAM_CAPTION_MAX,
  TELEGRAM_TEXT_MAX,
  type AlertSender,
  type BuiltAlert,
  type SenderOptions,
} from './senders';
export {
  gotifyMessage,
  markdownText,
  ntfyMessage,
  NTFY_MESSAGE_MAX_BYTES,
  pushoverMessage,
  PUSHOVER_MAX_ATTACHMENT,
  PUSHOVER_MESSAGE_MAX,
  PUSHOVER_TITLE_MAX,
  rfc2047,
  slackMessage,
  slackText,
  SLACK_HEADER_MAX,
  SLACK_SECTION_MAX,
  teamsMessage,
  teamsTakes,
  TEAMS_MAX_BYTES,
} from './webhooks';
