/**
 * What a detection-redis configuration node holds (the settings its dialog
 * saves, checked; its credentials), apart from the connection that uses
 * them: the node reads them without opening anything.
 */
import { z } from 'zod';
import { choiceOption, flagOption, numberOption } from '../core/options';
import { CONFIRM_AOF, CONFIRM_FEWER } from './confirm';
import { parseSentinels } from './sentinel';

/** What a configuration node holds; credentials come separately. */
export const RedisSettings = z
  .object({
    /** Single mode's address; sentinel mode asks the sentinels instead. */
    url: z.string().trim().optional(),
    database: numberOption({ integer: true, min: 0, max: 1000 }).optional(),
    tls: flagOption().optional(),
    /** With TLS: accept a certificate that does not check out (self-signed, another name). */
    tlsInsecure: flagOption().optional(),
    /** With TLS: PEM text of the certificate authority to trust besides the system's. */
    ca: z.string().optional(),
    /** Prepended to every key, so several sites or flows share one Redis. */
    prefix: z.string().max(200).optional(),
    /** This Node-RED instance's name among those that share a stream (its consumer name). */
    instance: z.string().trim().max(200).optional(),
    // --- Sentinel mode (issue 30) ---
    /** `single`: one server at `url` (absent: single, as flows saved before it); `sentinel`: the primary the sentinels name. */
    mode: z.enum(['single', 'sentinel']).optional(),
    /** The sentinels' `host:port` list (comma or space separated). */
    sentinels: z.string().trim().optional(),
    /** The name the sentinels monitor the primary by. */
    primaryName: z.string().trim().max(200).optional(),
    // --- end Sentinel mode ---
    // --- Confirm on replicas / on disk (lib/redis/confirm.ts); absent: not confirmed, as before ---
    /** Replicas that must have each event (WAIT) before its 200. */
    confirmReplicas: numberOption({ integer: true, min: 0, max: 10 }).optional(),
    /** How long Redis may take to confirm (ms). */
    confirmTimeoutMs: numberOption({ integer: true, min: 1, max: 60_000 }).optional(),
    /** Each event in the append-only file (WAITAOF) of the primary, or of the primary and the confirmed replicas. */
    confirmAof: choiceOption(CONFIRM_AOF).optional(),
    /** Fewer replicas online than Confirm on replicas asks: refuse every event (absent: as before), or confirm on those online. */
    confirmFewer: choiceOption(CONFIRM_FEWER).optional(),
    // --- end of Confirm ---
  })
  .superRefine((settings, ctx) => {
    if (settings.mode === 'sentinel') {
      if (!parseSentinels(settings.sentinels)) ctx.addIssue({ code: 'custom', path: ['sentinels'], message: 'options.redis-sentinels' });
      if (!settings.primaryName) ctx.addIssue({ code: 'custom', path: ['primaryName'], message: 'options.redis-primary-name' });
    } else if (!/^rediss?:\/\/[^\s/]+/i.test(settings.url ?? '')) {
      ctx.addIssue({ code: 'custom', path: ['url'], message: 'options.redis-url' });
    }
  });
export type RedisSettings = z.infer<typeof RedisSettings>;

export interface RedisCredentials {
  user?: string;
  password?: string;
  /** Sentinel mode: what the sentinels ask of a client, apart from Redis's own user and password. */
  sentinelUser?: string;
  sentinelPassword?: string;
}

/** Confirm within, when the configuration gives none (ms): see docs/nodes/detection-redis.md. */
export const DEFAULT_CONFIRM_TIMEOUT_MS = 1000;

/** Key prefix when the configuration gives none. */
export const DEFAULT_PREFIX = 'detection-bridge:';
