/**
 * A throw-away self-signed TLS certificate, made in-process with node:crypto
 * (no openssl binary): an EC P-256 key and an X.509 v3 certificate signed by
 * that key, written out by a small DER encoder.
 *
 * Used by the detection-listener configuration node (a receiver's own HTTPS
 * port: made once, kept under the user directory, see `keptCertificate`), by
 * the bridge simulator (`serve --tls-self-signed`) and by tests. Made here
 * rather than with a library (selfsigned pulls in node-forge, a pure-JS RSA
 * stack) or the openssl binary (absent on many Node-RED hosts, Windows
 * included): node:crypto makes the key and signs, and the result is parsed
 * back by Node's own X509Certificate before use. Node-RED-free.
 */
import { createHash, createPrivateKey, generateKeyPairSync, randomBytes, sign, X509Certificate } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isIP } from 'node:net';

export interface SelfSignedOptions {
  /** Subject and issuer common name. Default: the first name, else `localhost`. */
  commonName?: string;
  /** DNS names and IP addresses the certificate is valid for.
   *  Default: `localhost`, `127.0.0.1`, `::1`. */
  names?: string[];
  /** Validity in days from an hour ago (clock skew). Default 30. */
  days?: number;
  /** The validity's reference time. Default: now. */
  now?: Date;
}

export interface SelfSignedCertificate {
  /** PKCS#8 private key, PEM. */
  key: string;
  /** The certificate, PEM. */
  cert: string;
  /** SHA-256 fingerprint of the certificate, `AB:CD:…` (what browsers show). */
  fingerprint256: string;
  names: string[];
}

// ---- a minimal DER encoder ---------------------------------------------------

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), length(body.length), body]);
}

const seq = (...items: Buffer[]): Buffer => tlv(0x30, ...items);
const set = (...items: Buffer[]): Buffer => tlv(0x31, ...items);
const octets = (value: Buffer): Buffer => tlv(0x04, value);
const bitString = (value: Buffer): Buffer => tlv(0x03, Buffer.from([0]), value);
const utf8 = (text: string): Buffer => tlv(0x0c, Buffer.from(text, 'utf8'));
const explicit = (n: number, inner: Buffer): Buffer => tlv(0xa0 | n, inner);
const bool = (value: boolean): Buffer => tlv(0x01, Buffer.from([value ? 0xff : 0]));

function integer(value: Buffer): Buffer {
  let v = value;
  while (v.length > 1 && v[0] === 0 && v[1] < 0x80) v = v.subarray(1);
  if (v[0] >= 0x80) v = Buffer.concat([Buffer.from([0]), v]);
  return tlv(0x02, v);
}

function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map(Number);
  const bytes: number[] = [parts[0] * 40 + parts[1]];
  for (const part of parts.slice(2)) {
    const chunk: number[] = [part & 0x7f];
    for (let v = Math.floor(part / 128); v > 0; v = Math.floor(v / 128)) chunk.unshift(0x80 | (v & 0x7f));
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

/** UTCTime up to 2049, GeneralizedTime after (RFC 5280 4.1.2.5). */
function time(date: Date): Buffer {
  const iso = date.toISOString(); // 2026-01-02T03:04:05.678Z
  const digits = iso.slice(0, 19).replace(/[-:T]/g, '') + 'Z'; // 20260102030405Z
  return date.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(digits.slice(2), 'ascii')) : tlv(0x18, Buffer.from(digits, 'ascii'));
}

function ipBytes(ip: string): Buffer {
  if (isIP(ip) === 4) return Buffer.from(ip.split('.').map(Number));
  // IPv6: expand `::`, then 8 groups of 16 bits.
  const [head, tail] = ip.includes('::') ? ip.split('::') : [ip, undefined];
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const groups = tail === undefined ? headGroups : [...headGroups, ...Array(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups];
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => out.writeUInt16BE(parseInt(g || '0', 16), i * 2));
  return out;
}

const OID_ECDSA_SHA256 = '1.2.840.10045.4.3.2';
const OID_COMMON_NAME = '2.5.4.3';
const OID_SUBJECT_ALT_NAME = '2.5.29.17';
const OID_BASIC_CONSTRAINTS = '2.5.29.19';
const OID_EXT_KEY_USAGE = '2.5.29.37';
const OID_SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
/** Also a client certificate: tests (and a trial) of a listener that asks for one. */
const OID_CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';

function pem(label: string, der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

/** Makes a key and a self-signed server certificate for the given names. */
export function createSelfSignedCertificate(options: SelfSignedOptions = {}): SelfSignedCertificate {
  const names = options.names && options.names.length > 0 ? [...new Set(options.names)] : ['localhost', '127.0.0.1', '::1'];
  const commonName = options.commonName ?? names[0] ?? 'localhost';
  const days = options.days !== undefined && options.days > 0 ? options.days : 30;
  const now = options.now ?? new Date();
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });

  const algorithm = seq(oid(OID_ECDSA_SHA256));
  const name = seq(set(seq(oid(OID_COMMON_NAME), utf8(commonName))));
  const serial = randomBytes(16);
  serial[0] &= 0x7f;
  serial[0] |= 0x01; // positive and non-zero
  const altNames = names.map((n) => (isIP(n) ? tlv(0x87, ipBytes(n)) : tlv(0x82, Buffer.from(n, 'ascii'))));
  const extensions = seq(
    seq(oid(OID_BASIC_CONSTRAINTS), bool(true), octets(seq())),
    seq(oid(OID_EXT_KEY_USAGE), octets(seq(oid(OID_SERVER_AUTH), oid(OID_CLIENT_AUTH)))),
    seq(oid(OID_SUBJECT_ALT_NAME), octets(seq(...altNames))),
  );
  const tbs = seq(
    explicit(0, integer(Buffer.from([2]))), // v3
    integer(serial),
    algorithm,
    name,
    seq(time(new Date(now.getTime() - 3600_000)), time(new Date(now.getTime() + days * 86_400_000))),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    explicit(3, extensions),
  );
  const signature = sign('sha256', tbs, privateKey); // DER-encoded ECDSA signature
  const der = seq(tbs, algorithm, bitString(signature));
  const cert = pem('CERTIFICATE', der);
  // Parse it back: a certificate Node cannot read never leaves this function.
  const x509 = new X509Certificate(cert);
  return {
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    cert,
    fingerprint256: x509.fingerprint256 || fingerprint(der),
    names,
  };
}

function fingerprint(der: Buffer): string {
  return (createHash('sha256').update(der).digest('hex').toUpperCase().match(/../g) ?? []).join(':');
}

/** A certificate kept in a directory: made on the first call, read back on every later one. */
export interface KeptCertificate extends SelfSignedCertificate {
  /** True when this call made it (nothing usable was kept). */
  created: boolean;
  /** Its last day of validity. */
  validTo: Date;
}

/** Renewed when fewer days than this are left. */
const RENEW_DAYS = 30;

/**
 * The self-signed certificate kept in `dir` (`cert.pem`, `key.pem`, the key
 * readable by the owner only): the same one after every restart, so a bridge
 * that pinned its fingerprint keeps trusting it. Made when none is kept, when
 * the kept one cannot be read or does not match its key, and when it is about
 * to expire.
 */
export function keptCertificate(dir: string, options: SelfSignedOptions = {}): KeptCertificate {
  const certPath = join(dir, 'cert.pem');
  const keyPath = join(dir, 'key.pem');
  const now = options.now ?? new Date();
  try {
    const cert = readFileSync(certPath, 'utf8');
    const key = readFileSync(keyPath, 'utf8');
    const x509 = new X509Certificate(cert);
    const validTo = new Date(x509.validTo);
    if (x509.checkPrivateKey(createPrivateKey(key)) && validTo.getTime() - now.getTime() > RENEW_DAYS * 86_400_000) {
      const names = (x509.subjectAltName ?? '')
        .split(', ')
        .map((entry) => entry.replace(/^(DNS|IP Address):/, ''))
        .filter(Boolean);
      return { key, cert, fingerprint256: x509.fingerprint256, names, created: false, validTo };
    }
  } catch {
    // Nothing kept yet, or unreadable: make one below.
  }
  const made = createSelfSignedCertificate({ days: 3650, ...options });
  mkdirSync(dir, { recursive: true });
  // Written beside and renamed, so a crash never leaves half a key.
  writeFileSync(`${keyPath}.tmp`, made.key, { mode: 0o600 });
  renameSync(`${keyPath}.tmp`, keyPath);
  writeFileSync(`${certPath}.tmp`, made.cert);
  renameSync(`${certPath}.tmp`, certPath);
  return { ...made, created: true, validTo: new Date(new X509Certificate(made.cert).validTo) };
}
