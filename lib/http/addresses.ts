/**
 * The addresses at which another machine (the events bridge) can reach this
 * one: what the detection-in dialog offers as the WebHook address, instead of
 * the host the browser happened to use (127.0.0.1 when the editor is opened
 * on the same machine).
 */
import type { NetworkInterfaceInfo } from 'node:os';

export interface ReachableAddresses {
  /** Addresses another machine may use, IPv4 first (the likelier one in a bridge's settings). */
  addresses: string[];
  /** True when no such address is known: only a loopback one is offered. */
  loopbackOnly: boolean;
  /** True when the server listens on a loopback address only (`uiHost`): no other machine reaches it. */
  localOnly: boolean;
}

/** A wildcard listen address: every interface. */
const ANY = new Set(['', '0.0.0.0', '::', '::0']);

function isLoopback(address: string): boolean {
  return /^127\./.test(address) || address === '::1' || address.toLowerCase() === 'localhost';
}

/**
 * Addresses from `os.networkInterfaces()`: not internal, not IPv6 link-local
 * (fe80::, which needs a zone a bridge cannot be given). When the server
 * listens on one address other than loopback (`uiHost`), that one only.
 */
export function reachableAddresses(interfaces: NodeJS.Dict<NetworkInterfaceInfo[]>, listenHost?: string): ReachableAddresses {
  const host = (listenHost ?? '').trim();
  const localOnly = isLoopback(host);
  if (!ANY.has(host) && !localOnly) return { addresses: [host], loopbackOnly: false, localOnly };
  const v4: string[] = [];
  const v6: string[] = [];
  for (const infos of Object.values(interfaces)) {
    for (const info of infos ?? []) {
      if (info.internal || isLoopback(info.address)) continue;
      if (info.family === 'IPv4' || (info.family as unknown) === 4) v4.push(info.address);
      else if (!/^fe80:/i.test(info.address)) v6.push(info.address);
    }
  }
  const addresses = [...new Set([...v4, ...v6])];
  if (addresses.length === 0) return { addresses: [localOnly ? host : '127.0.0.1'], loopbackOnly: true, localOnly };
  return { addresses, loopbackOnly: false, localOnly };
}

/** `http://192.168.1.20:1880`: an IPv6 address in brackets, the port left out when it is the scheme's. */
export function webhookBase(options: { https: boolean; address: string; port?: number }): string {
  const scheme = options.https ? 'https' : 'http';
  const host = options.address.includes(':') ? `[${options.address}]` : options.address;
  const port = options.port && options.port !== (options.https ? 443 : 80) ? `:${options.port}` : '';
  return `${scheme}://${host}${port}`;
}
