/**
 * The WebHook address detection-in's dialog suggests: addresses of this
 * machine another one (the bridge) can use, not the host the browser
 * happened to use; for a receiver on a listener, that listener's port,
 * scheme and address (?port=&https=&host= from its dialog).
 */
import type { Server } from 'node:http';
import { networkInterfaces } from 'node:os';
import type { NodeAPI } from 'node-red';
import { reachableAddresses, webhookBase } from '../../lib/http';

export function serveAddresses(RED: NodeAPI): void {
  RED.httpAdmin.get('/detection-in/addresses', RED.auth.needsPermission('detection-in.read'), (req, res) => {
    const settings = RED.settings as unknown as Record<string, unknown>;
    const server = (RED as unknown as { server?: Server }).server;
    const bound = server?.address();
    const listen = bound && typeof bound === 'object' ? bound : undefined;
    const own = Number(req.query.port);
    const onListener = Number.isInteger(own) && own > 0 && own < 65536;
    const port = onListener ? own : (listen?.port ?? Number(settings.uiPort ?? 1880));
    const https = onListener ? req.query.https === 'true' : Boolean(settings.https);
    const host = onListener ? String(req.query.host ?? '') : (listen?.address ?? (settings.uiHost as string | undefined));
    const found = reachableAddresses(networkInterfaces(), host);
    res.json({
      bases: found.addresses.map((address) => webhookBase({ https, address, port })),
      loopbackOnly: found.loopbackOnly,
      localOnly: found.localOnly,
      https,
      root: settings.httpNodeRoot === false ? false : typeof settings.httpNodeRoot === 'string' ? settings.httpNodeRoot : '/',
    });
  });
}
