/**
 * The platform's installed plugins (module instances), whose answer shape the
 * spec does not give: a best-effort list, and the POS instances among them
 * (their ids go into the POS batch path).
 */
import { isRecord, pick } from './fields';

export interface PluginInfo {
  id: string;
  name: string;
  type?: string;
  /** The object the entry was read from. */
  raw: Record<string, unknown>;
}

const ID_KEYS = ['id', 'pluginId', 'instanceId'] as const;
const NAME_KEYS = ['name', 'displayName', 'title'] as const;
const TYPE_KEYS = ['type', 'module', 'kind'] as const;
/** Keys of arrays that say nothing about what the entries are. */
const GENERIC_KEYS = new Set([
  'data',
  'result',
  'results',
  'items',
  'value',
  'values',
  'list',
  'content',
  'records',
  'plugins',
  'installedplugins',
  'modules',
  'instances',
  'entries',
]);
const MAX_PLUGIN_DEPTH = 8;

function scalarText(value: unknown): string | undefined {
  if (typeof value === 'string' && value.trim() !== '') return value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/**
 * Best-effort list of plugins (module instances) in an installed-plugins
 * answer, whose shape the spec does not give. Every object inside an array
 * that has an id-like field (`id` | `pluginId` | `instanceId`) becomes an
 * entry: name from `name` | `displayName` | `title` (else the id), type from
 * `type` | `module` | `kind`, else inherited from the enclosing object (its
 * type or name, as in `{module: "pos", instances: [...]}`) or from a telling
 * array key (`{pos: [...]}`). Duplicates (same id and type) are dropped.
 */
export function normalizePlugins(body: unknown): PluginInfo[] {
  const out: PluginInfo[] = [];
  const seen = new Set<string>();
  const walk = (value: unknown, hint: string | undefined, depth: number): void => {
    if (depth > MAX_PLUGIN_DEPTH || value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) {
      for (const item of value) {
        if (!isRecord(item)) continue;
        const id = pick(item, ID_KEYS, scalarText)?.[1] as string | undefined;
        const ownType = pick(item, TYPE_KEYS, scalarText)?.[1] as string | undefined;
        const name = pick(item, NAME_KEYS, scalarText)?.[1] as string | undefined;
        if (id !== undefined) {
          const type = ownType ?? hint;
          const key = `${type ?? ''}\u0000${id}`;
          if (!seen.has(key)) {
            seen.add(key);
            out.push({ id, name: name ?? id, ...(type !== undefined ? { type } : {}), raw: item });
          }
        }
        walkChildren(item, ownType ?? (id === undefined ? name : undefined) ?? hint, depth + 1);
      }
      return;
    }
    walkChildren(value as Record<string, unknown>, hint, depth + 1);
  };
  const walkChildren = (holder: Record<string, unknown>, hint: string | undefined, depth: number): void => {
    for (const [key, child] of Object.entries(holder)) {
      if (child === null || typeof child !== 'object') continue;
      const keyHint = Array.isArray(child) && !GENERIC_KEYS.has(key.toLowerCase()) ? key : undefined;
      walk(child, keyHint ?? hint, depth);
    }
  };
  walk(body, undefined, 0);
  return out;
}

function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** True when the plugin's type or name mentions POS (`pos`, `POS Bar`, `PosPlugin`, `point of sale`). */
export function isPosPlugin(plugin: Pick<PluginInfo, 'name' | 'type'>): boolean {
  for (const text of [plugin.type, plugin.name]) {
    if (!text) continue;
    const w = words(text);
    if (w.includes('pos')) return true;
    if (w.join(' ').includes('point of sale')) return true;
  }
  return false;
}

/** The POS instances among the plugins (their ids go into `posBatchPath`). */
export function posPlugins(plugins: ReadonlyArray<PluginInfo>): PluginInfo[] {
  return plugins.filter(isPosPlugin);
}
