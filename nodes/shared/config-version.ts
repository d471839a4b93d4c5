/**
 * Configuration versions in Node-RED (lib/config/migrate.ts has the versions
 * and the steps): the runtime brings a node's saved configuration up to date
 * before the node sees it, and the editor gets the same steps as a script.
 *
 * Why a script: the editor must migrate a node as it is loaded, imported or
 * pasted, before its dialog or its validators see it, and must not keep a
 * copy of the steps that could drift from the runtime's. So the package's
 * editor script (editor-script.ts), which each node's editor file loads, holds
 * the compiled lib/config/migrate.js, wrapped, and runs installInEditor
 * below. Node-RED's import does not give a missing property its default
 * (only dropping a new node from the palette does), so a node from a flow
 * saved before versions existed arrives without `configVersion` and is
 * migrated from version 1, while a new node gets the current version from
 * its defaults and is left alone; then each property still missing gets its
 * default (completeConfig), so the dialog never shows an option empty.
 *
 * Where the runtime reads a node's configuration, it also says which saved
 * options the node cannot use as they are (warnWrongOptions): every node type
 * gets the warning here, none has code of its own for it.
 */
import type { Node, NodeAPI } from 'node-red';
import { currentVersion, isNewer, migrateConfig, versionOf, type Config, NODE_OPTIONS, type NodeType, wrongOptionMessages } from '../../lib/config';
import { translate } from './i18n';

/**
 * The configuration a node of `type` runs with: `saved` brought up to date.
 * A configuration saved by a newer release of the package runs as it is,
 * with a warning (each option the node does not understand takes its
 * default, as for any configuration edited by hand).
 */
export function upToDate<T extends object>(RED: NodeAPI, node: Node, type: string, saved: T): T {
  if (isNewer(type, saved as Config)) {
    node.warn(RED._('config-version.newer', { saved: versionOf(saved as Config), current: currentVersion(type) }));
    warnWrongOptions(RED, node, type, saved);
    return saved;
  }
  const config = migrateConfig(type, saved as Config) as T;
  warnWrongOptions(RED, node, type, config);
  return config;
}

/**
 * One warning per option of the table (lib/config/node-options.ts) the node
 * runs with another value than the one saved: every node type gets it here,
 * where its configuration is read, with no code of its own. A value that
 * stops the node is its setup's to say.
 */
export function warnWrongOptions(RED: NodeAPI, node: Node, type: string, config: object): void {
  if (!Object.prototype.hasOwnProperty.call(NODE_OPTIONS, type)) return;
  const name = (node as Node & { name?: unknown }).name;
  const label = RED._(`${type}.paletteLabel`);
  const who = typeof name === 'string' && name.trim() !== '' ? `${label} "${name.trim()}"` : label;
  for (const warning of wrongOptionMessages(type as NodeType, config, who)) node.warn(translate(RED, warning));
}

/** The parts of the editor's RED that installInEditor uses. */
export interface EditorRED {
  events: { on(event: 'nodes:add', handler: (node: EditorNode) => void): void };
}
interface EditorNode {
  type: string;
  _def?: { defaults?: Record<string, unknown> };
  /** The node behind the editor's proxy (Node-RED 4+). */
  __node__?: EditorNode;
  [property: string]: unknown;
}
export type Migration = Pick<typeof import('../../lib/config'), 'isVersioned' | 'migrateConfig' | 'completeConfig'>;

/**
 * Runs in the editor, sent as its source text: it may use nothing but its
 * arguments. Migrates each node of the package as the editor adds it to the
 * workspace (loading the flows, an import, a paste, undo), before its
 * validators run, then gives each property the node lacks its default
 * (completeConfig: Node-RED's import leaves it missing, and the dialog would
 * show it empty and invalid). The changes go to the node behind the editor's
 * proxy: the proxy refuses them in a locked flow, and they are no edit of the
 * user's to undo or to mark as changed (the runtime runs the same steps and
 * the same defaults; the next deploy saves the new shape).
 */
export function installInEditor(RED: EditorRED, migration: Migration): void {
  RED.events.on('nodes:add', (node) => {
    if (!migration.isVersioned(node.type) || !node._def || !node._def.defaults) return;
    const declared = node._def.defaults as Record<string, { value?: unknown } | undefined>;
    const target = node.__node__ || node;
    const saved: Record<string, unknown> = {};
    const defaults: Record<string, unknown> = {};
    for (const key of Object.keys(declared)) {
      saved[key] = target[key];
      defaults[key] = declared[key] ? declared[key].value : undefined;
    }
    const complete = migration.completeConfig(node.type, migration.migrateConfig(node.type, saved), defaults);
    if (complete === saved) return;
    for (const key of Object.keys(complete)) if (complete[key] !== saved[key]) target[key] = complete[key];
  });
}
