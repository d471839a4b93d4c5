/**
 * Telegram buttons' callbacks (to be built).
 */
import type { ActionResult } from '../../lib/alarm';
import type { MessageContext, Msg } from './messages';

export interface TelegramCallback {
  action: 'ack' | 'snooze';
  id: string;
  by: string;
}

export function readTelegramCallback(_payload: unknown): TelegramCallback | undefined {
  return undefined;
}

export function telegramReplies(
  _callback: TelegramCallback,
  _result: ActionResult | null,
  _reply: Record<string, unknown>,
  _c: MessageContext,
): Msg[] {
  return [];
}
