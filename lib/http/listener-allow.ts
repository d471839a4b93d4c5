/**
 * The allow-list of a receiver's own port: which client addresses may
 * connect, as IPv4 and IPv6 addresses and CIDR ranges. An IPv4 client on a
 * dual-stack socket shows as `::ffff:10.1.2.3`: it is matched as the IPv4
 * address it is.
 */
import { BlockList, isIP } from 'node:net';

export interface AllowEntryProblem {
  /** The entry as written. */
  entry: string;
  /** Why it is not an address or a range, in English (the node translates by `reason`). */
  reason: 'address' | 'prefix';
}

export interface AllowList {
  /** The entries as written, for messages. */
  entries: string[];
  /** True when `address` (a socket's remoteAddress) is in one of the ranges. */
  allows(address: string | undefined): boolean;
}

/** Entries separated by commas, spaces or new lines; `#` starts a comment to the end of the line. */
export function splitAllowList(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.replace(/#.*/, ''))
    .join(' ')
    .split(/[\s,;]+/)
    .filter(Boolean);
}

const MAPPED_V4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

/** The address an IPv4 client has, also when it is written IPv4-mapped. */
function unmapped(address: string): string {
  const mapped = MAPPED_V4.exec(address);
  return mapped ? mapped[1] : address;
}

/** The first entry of `text` that is not an address or a range, or undefined when all are. */
export function allowListProblem(text: string): AllowEntryProblem | undefined {
  for (const entry of splitAllowList(text)) {
    const [address, prefix, extra] = entry.split('/');
    const family = isIP(unmapped(address));
    if (family === 0 || extra !== undefined) return { entry, reason: 'address' };
    if (prefix === undefined) continue;
    // A range written IPv4-mapped (::ffff:10.0.0.0/104) has an IPv6 prefix of 96 or more.
    const [min, max] = unmapped(address) !== address ? [96, 128] : family === 4 ? [0, 32] : [0, 128];
    if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > max || Number(prefix) < min) return { entry, reason: 'prefix' };
  }
  return undefined;
}

/** The allow-list of `text`; an empty one allows every address. Throws on an entry `allowListProblem` names. */
export function parseAllowList(text: string): AllowList {
  const problem = allowListProblem(text);
  if (problem) throw new Error(`"${problem.entry}" is not an IPv4 or IPv6 address or CIDR range (such as 192.168.1.0/24)`);
  const entries = splitAllowList(text);
  if (entries.length === 0) return { entries, allows: () => true };
  const v4 = new BlockList();
  const v6 = new BlockList();
  for (const entry of entries) {
    const [written, prefix] = entry.split('/');
    const address = unmapped(written);
    // `::ffff:10.0.0.0/104` is the IPv4 range 10.0.0.0/8 written mapped.
    const mapped = address !== written;
    const family = isIP(address) === 4 ? 'ipv4' : 'ipv6';
    const bits = prefix === undefined ? (family === 'ipv4' ? 32 : 128) : Math.max(0, Number(prefix) - (mapped ? 96 : 0));
    (family === 'ipv4' ? v4 : v6).addSubnet(address, bits, family);
  }
  return {
    entries,
    allows(given) {
      if (!given) return false;
      const address = unmapped(given.replace(/%.*$/, ''));
      const family = isIP(address);
      if (family === 4) return v4.check(address, 'ipv4');
      if (family === 6) return v6.check(address, 'ipv6');
      return false;
    },
  };
}
