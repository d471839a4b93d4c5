/**
 * detection-dedupe: drops repeats of the same key inside a window.
 * Mode "id": the bridge's messageId (stable across retries). Mode "cooldown":
 * a key such as plate + detector, dropped for N seconds after it passed.
 * The window itself is lib/dedupe.ts.
 */
import type { Node, NodeAPI, NodeDef, NodeMessage, NodeMessageInFlow } from 'node-red';
import { DedupeWindow } from '../../lib/events/dedupe';
import { eventHash } from '../../lib/events/event-hash';
import { propertyReader, type PropertyReader, type PropertyUtil } from '../shared/typed-property';
import { throttle } from '../shared/throttle';

type Mode = 'id' | 'cooldown';
type MissingKey = 'pass' | 'drop' | 'hash';

interface DedupeDef extends NodeDef {
  mode: Mode;
  key: string;
  keyType: string;
  missingKey: MissingKey;
  ttl: number | string;
  ttlUnits: 's' | 'm' | 'h';
  refresh: boolean;
  maxKeys: number | string;
  duplicatesOutput: boolean;
  persist: boolean;
  store: string;
}

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000 } as const;
/** Context key under which a persisted window is kept. */
const CONTEXT_KEY = 'detection-dedupe-window';
const SAVE_DELAY_MS = 2000;

export = function register(RED: NodeAPI): void {
  function DetectionDedupe(this: Node, config: DedupeDef): void {
    RED.nodes.createNode(this, config);
    const node = this;
    const t = (key: string, vars?: Record<string, string | number>): string => RED._(`detection-dedupe.${key}`, vars);

    const mode: Mode = config.mode === 'cooldown' ? 'cooldown' : 'id';
    const ttlMs = Number(config.ttl) * (UNIT_MS[config.ttlUnits] ?? UNIT_MS.s);
    const maxKeys = Math.floor(Number(config.maxKeys));
    let window: DedupeWindow;
    try {
      window = new DedupeWindow({ ttlMs, maxKeys, refreshOnRepeat: mode === 'cooldown' && !!config.refresh });
    } catch (err) {
      node.status({ fill: 'red', shape: 'ring', text: t('status.error') });
      node.error(t('errors.config', { message: (err as Error).message }));
      return;
    }
    const keyType = config.keyType || 'msg';
    const keyValue = config.key ?? (mode === 'id' ? 'messageId' : '');
    const missingKey: MissingKey = ['pass', 'drop', 'hash'].includes(config.missingKey) ? config.missingKey : 'pass';
    const withDuplicatesOutput = !!config.duplicatesOutput;
    // The default key also finds the id inside an event from another source (MQTT, a file).
    const isDefaultIdKey = keyType === 'msg' && keyValue === 'messageId';

    let readKey: PropertyReader;
    try {
      readKey = propertyReader(RED.util as unknown as PropertyUtil, node, keyValue, keyType);
    } catch (err) {
      node.status({ fill: 'red', shape: 'ring', text: t('status.error') });
      node.error(t('errors.expression', { message: (err as Error).message }));
      return;
    }

    const counts = { passed: 0, dropped: 0 };
    const showStatus = throttle(() => {
      node.status({
        fill: 'green',
        shape: 'dot',
        text: t('status.counts', { passed: counts.passed, dropped: counts.dropped, keys: window.size }),
      });
    }, 250);

    /** Resolves the key of a message; undefined when it has none. */
    function keyOf(msg: NodeMessageInFlow): Promise<unknown> {
      return new Promise((resolve, reject) => {
        readKey(msg, (err, value) => {
          if (err) reject(err);
          else if (value === undefined && isDefaultIdKey) resolve(RED.util.getMessageProperty(msg, 'payload.payload.messageId'));
          else resolve(value);
        });
      });
    }

    // Persistence: load the saved window before handling the first message.
    const store = config.store || undefined;
    const context = node.context();
    let saveTimer: NodeJS.Timeout | undefined;
    const save = (): Promise<void> =>
      new Promise((resolve) => {
        context.set(CONTEXT_KEY, { v: 1, ttlMs, entries: window.snapshot() }, store as string, (err?: Error) => {
          if (err) node.error(t('errors.persist', { message: err.message }));
          resolve();
        });
      });
    const scheduleSave = (): void => {
      if (!config.persist || saveTimer) return;
      saveTimer = setTimeout(() => {
        saveTimer = undefined;
        void save();
      }, SAVE_DELAY_MS);
    };
    const ready: Promise<void> = config.persist
      ? new Promise((resolve) => {
          context.get(CONTEXT_KEY, store as string, (err: Error | undefined, saved: unknown) => {
            if (err) node.error(t('errors.persist', { message: err.message }));
            else if (saved && typeof saved === 'object') window.restore((saved as { entries?: unknown }).entries);
            showStatus();
            resolve();
          });
        })
      : Promise.resolve();
    node.status({ fill: 'grey', shape: 'ring', text: t('status.counts', { passed: 0, dropped: 0, keys: 0 }) });

    let warnedNoKey = false;

    // Messages are handled strictly in arrival order (a reset must not overtake
    // the message before it), though key evaluation and loading are asynchronous.
    let queue: Promise<void> = Promise.resolve();
    node.on('input', (msg: NodeMessageInFlow, send: (m: Array<NodeMessage | null>) => void, done: (err?: Error) => void) => {
      queue = queue.then(() =>
        handle(msg, send).then(
          () => done(),
          (err: unknown) => done(asError(err)),
        ),
      );
    });

    /** JSONata throws plain objects; Catch nodes need an Error with a message. */
    function asError(err: unknown): Error {
      if (err instanceof Error) return err;
      const message = (err as { message?: unknown } | null)?.message;
      return new Error(`${t('errors.key')}: ${typeof message === 'string' ? message : String(err)}`);
    }

    async function handle(msg: NodeMessageInFlow, send: (m: Array<NodeMessage | null>) => void): Promise<void> {
      await ready;
      if (Object.prototype.hasOwnProperty.call(msg, 'reset')) {
        window.clear();
        counts.passed = 0;
        counts.dropped = 0;
        showStatus();
        scheduleSave();
        return;
      }
      let key = await keyOf(msg);
      if (key === undefined || key === null || key === '') {
        if (missingKey === 'drop') {
          counts.dropped++;
          showStatus();
          return;
        }
        if (missingKey === 'pass') {
          if (!warnedNoKey) {
            warnedNoKey = true;
            node.warn(t('warn.no-key', { key: `${keyType}.${keyValue}` }));
          }
          counts.passed++;
          showStatus();
          send([msg, null]);
          return;
        }
        key = `hash:${eventHash(msg.payload)}`;
      }
      const keyText = typeof key === 'string' ? key : JSON.stringify(key);
      const sighting = window.check(keyText);
      scheduleSave();
      if (!sighting.duplicate) {
        counts.passed++;
        showStatus();
        send([msg, null]);
        return;
      }
      counts.dropped++;
      showStatus();
      if (withDuplicatesOutput) {
        (msg as NodeMessageInFlow & { duplicateOf: unknown }).duplicateOf = { key: keyText, firstSeen: new Date(sighting.since).toISOString() };
        send([null, msg]);
      }
    }

    node.on('close', (_removed: boolean, done: () => void) => {
      showStatus.cancel();
      if (saveTimer) clearTimeout(saveTimer);
      saveTimer = undefined;
      // Wait for a load still under way, or an empty window would overwrite the saved one.
      if (config.persist) void ready.then(save).then(done);
      else done();
    });
  }

  RED.nodes.registerType('detection-dedupe', DetectionDedupe);
};
