/** The alert message: its text from a template of fields, its picture, an alarm's sentence, link and buttons, and the message each common sender takes. */
export { ALERT_FIELDS, renderTemplate, unknownFields, type AlertField, type AlertValues } from './template';
export { alertTags, alertValues, isUrgent, type FieldContext } from './fields';
export { alertPicture, type AlertPicture, type PictureResult } from './picture';
export { cut, cutBytes, withLinkLine, type AlertInput, type AlertLink } from './text';
export { CALLBACK_DATA_MAX_BYTES, isRepeatNotice, readAlarmNotice, type AlertAlarm, type AlertButton } from './alarm-notice';
export {
  ALERT_SENDERS,
  buildAlert,
  emailText,
  telegramChatId,
  telegramKeyboard,
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
  PUSHOVER_URL_MAX,
  PUSHOVER_URL_TITLE_MAX,
  rfc2047,
  slackMessage,
  slackText,
  SLACK_HEADER_MAX,
  SLACK_SECTION_MAX,
  teamsMessage,
  teamsTakes,
  TEAMS_MAX_BYTES,
} from './webhooks';
