/**
 * The mail link's page (to be built: see the notes in detection-alarm.ts).
 */
import type { Node, NodeAPI } from 'node-red';
import type { ActionRequest, ActionResult, AlarmStore } from '../../lib/alarm';
import type { Clock } from '../../lib/core';
import type { Vars } from '../shared/i18n';
import type { AlarmSettings } from './settings';

export interface PageDeps {
  t: (key: string, vars?: Vars) => string;
  clock: Clock;
  act(request: ActionRequest): Promise<{ result: ActionResult | null; reply: Record<string, unknown> }>;
  store(): Promise<AlarmStore>;
}

export function mountLinkPage(_RED: NodeAPI, _node: Node, _settings: AlarmSettings, _deps: PageDeps): { close(): void } {
  return { close: () => undefined };
}
