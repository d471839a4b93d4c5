/**
 * TLS for the simulator: the self-signed certificate `serve --tls-self-signed`
 * uses (made in lib/http/self-signed.ts), and how `send` trusts a receiver's
 * certificate: any (`--insecure`), one signed by a given CA (`--ca`), or
 * exactly one, by its SHA-256 fingerprint (`--fingerprint`, pinning).
 */
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { buildConnector } from 'undici';

export { createSelfSignedCertificate, type SelfSignedCertificate, type SelfSignedOptions } from '../lib/http';

/** `ab:cd…`, `ABCD…` or `sha256/AB CD…` → `AB:CD:…`; undefined when it is not 32 bytes of hex. */
export function normalizeFingerprint(text: string): string | undefined {
  const hex = text
    .trim()
    .replace(/^sha-?256[:/=]?/i, '')
    .replace(/[\s:]/g, '')
    .toUpperCase();
  if (!/^[0-9A-F]{64}$/.test(hex)) return undefined;
  return (hex.match(/../g) ?? []).join(':');
}

/** How `send` checks the receiver's certificate. */
export interface TrustOptions {
  /** Accept any certificate. */
  insecure?: boolean;
  /** PEM: trust certificates signed by these (instead of the system's list). */
  ca?: string;
  /** Accept exactly the certificate with this SHA-256 fingerprint (any name, any issuer). */
  fingerprint?: string;
}

/**
 * The `connect` option of an undici Agent for `trust`. Pinning accepts the
 * certificate whatever its chain and names (a self-signed one has no chain to
 * check), then compares the fingerprint once the handshake is done, before a
 * byte of the request is sent: Node calls `checkServerIdentity` only for a
 * chain that verified, so the check is a wrapped connector instead.
 */
export function connectFor(trust: TrustOptions): buildConnector.BuildOptions | buildConnector.connector {
  const pinned = trust.fingerprint ? normalizeFingerprint(trust.fingerprint) : undefined;
  if (trust.fingerprint && !pinned) throw new Error(`"${trust.fingerprint}" is not a SHA-256 fingerprint (64 hexadecimal digits)`);
  if (!pinned) {
    if (trust.insecure) return { rejectUnauthorized: false };
    return trust.ca ? { ca: trust.ca } : {};
  }
  const connect = buildConnector({ rejectUnauthorized: false });
  return (options, callback) =>
    connect(options, (err, socket) => {
      if (err || !socket || options.protocol !== 'https:') {
        if (err) callback(err, null);
        else callback(null, socket as Socket);
        return;
      }
      const seen = (socket as TLSSocket).getPeerCertificate().fingerprint256 ?? '';
      if (seen.toUpperCase() === pinned) {
        callback(null, socket);
        return;
      }
      const mismatch = Object.assign(new Error(`the receiver's certificate ${seen || '(none)'} is not the pinned ${pinned}`), {
        code: 'ERR_TLS_FINGERPRINT_MISMATCH',
      });
      socket.destroy();
      callback(mismatch, null);
    });
}
