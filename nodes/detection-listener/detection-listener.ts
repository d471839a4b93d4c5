/**
 * detection-listener: configuration node for a receiver's own port (HTTP or
 * HTTPS, an allow-list of client addresses, optional client certificates),
 * shared by the detection-in nodes that choose it. The server is
 * lib/http/listener.ts; it starts with the first receiver that uses it and
 * closes with the node. A self-signed certificate is made once and kept under
 * the user directory, so the fingerprint a bridge was given stays right.
 */
import { readFileSync } from 'node:fs';
import { hostname, networkInterfaces } from 'node:os';
import { X509Certificate } from 'node:crypto';
import type { NodeAPI, NodeDef } from 'node-red';
import { reachableAddresses, Listener, type ListenerTls, allowListProblem, parseAllowList, keptCertificate } from '../../lib/http';
import { nodeOptions, optionRule, type SavedOptions } from '../../lib/config';
import { checkOption } from '../../lib/core';
import { nodeText, statusText, type Vars } from '../shared/i18n';
import { registerNode } from '../shared/register';
import type { ListenerConfigNode } from './listener-node';
import { nodeFile } from '../shared/user-dir';

interface DetectionListenerDef extends NodeDef, SavedOptions<'detection-listener'> {
  host?: string;
  certFile?: string;
  keyFile?: string;
  cert?: string;
  allow?: string;
  clientCa?: string;
}

interface DetectionListenerCredentials {
  key?: string;
}

interface Certified {
  fingerprint256: string;
  validTo: string;
}

/** Where a listener's self-signed certificate is kept. */
function keptDir(RED: NodeAPI, id: string): string {
  return nodeFile(RED, 'listener', id);
}

/** The names a made certificate is valid for: this machine's, as far as it knows them. */
function certificateNames(host: string): string[] {
  const found = reachableAddresses(networkInterfaces(), host);
  return [
    ...new Set(['localhost', hostname(), '127.0.0.1', '::1', ...(host && !['0.0.0.0', '::'].includes(host) ? [host] : []), ...found.addresses]),
  ];
}

const PEM_CERT = /-----BEGIN CERTIFICATE-----/;
const PEM_KEY = /-----BEGIN [A-Z ]*PRIVATE KEY-----/;

export = function register(RED: NodeAPI): void {
  /** Deployed listeners' certificates, by node id: what the dialog shows. */
  const certified = new Map<string, Certified>();

  // The fingerprint the dialog shows for the bridge's trust setting. A self-signed
  // certificate not made yet is made now, so the one shown is the one deployed.
  RED.httpAdmin.get('/detection-listener/:id/certificate', RED.auth.needsPermission('detection-listener.write'), (req, res) => {
    const id = String(req.params.id);
    const deployed = certified.get(id);
    if (deployed && req.query.tls !== 'self-signed') {
      res.json(deployed);
      return;
    }
    if (req.query.tls !== 'self-signed') {
      res.json({});
      return;
    }
    try {
      const kept = keptCertificate(keptDir(RED, id), { names: certificateNames(String(req.query.host ?? '')) });
      res.json({ fingerprint256: kept.fingerprint256, validTo: kept.validTo.toISOString(), names: kept.names });
    } catch (err) {
      res.status(500).json({ error: (err as Error).message });
    }
  });

  registerNode<DetectionListenerDef, DetectionListenerCredentials, ListenerConfigNode>(
    RED,
    'detection-listener',
    (node, config) => {
      const t = nodeText(RED, 'detection-listener');
      const s = statusText(RED, 'detection-listener');
      const creds: DetectionListenerCredentials = node.credentials ?? {};
      let listener: Listener | undefined;
      let problem: string | undefined;

      /** Cannot listen: the error `key` of the catalog, under the node (a key, when without figures) and in the log. */
      const fail = (key: string, vars?: Vars): void => {
        problem = t(key, vars);
        node.status({ fill: 'red', shape: 'ring', text: s(key, vars) });
        node.error(problem);
      };

      const setup = (): Listener | undefined => {
        const host = (config.host ?? '').trim();
        const portText = String(config.port ?? '').trim();
        // no port is no listener (no default: a port taken by surprise would be worse)
        const portChecked = checkOption(optionRule('detection-listener', 'port'), portText);
        if (!portChecked.ok || typeof portChecked.value !== 'number') return void fail('errors.port', { port: portText });
        const port = portChecked.value;
        const allowText = config.allow ?? '';
        const allowProblem = allowListProblem(allowText);
        if (allowProblem) return void fail(`errors.allow-${allowProblem.reason}`, { entry: allowProblem.entry });
        const { tls: mode, clientCerts } = nodeOptions('detection-listener', config);
        let tls: ListenerTls | undefined;
        try {
          if (mode === 'self-signed') {
            const kept = keptCertificate(keptDir(RED, node.id), { names: certificateNames(host) });
            if (kept.created) node.log(t('log.made', { fingerprint: kept.fingerprint256 }));
            tls = { cert: kept.cert, key: kept.key };
          } else if (mode === 'files') {
            if (!config.certFile?.trim() || !config.keyFile?.trim()) return void fail('errors.files-missing');
            tls = { cert: readFileSync(config.certFile.trim(), 'utf8'), key: readFileSync(config.keyFile.trim(), 'utf8') };
          } else if (mode === 'pem') {
            tls = { cert: config.cert ?? '', key: creds.key ?? '' };
          }
        } catch (err) {
          return void fail('errors.certificate', { message: (err as Error).message });
        }
        if (tls) {
          if (!PEM_CERT.test(String(tls.cert))) return void fail('errors.cert-pem');
          if (!PEM_KEY.test(String(tls.key))) return void fail('errors.key-pem');
          if (clientCerts) {
            if (!PEM_CERT.test(config.clientCa ?? '')) return void fail('errors.client-ca');
            tls.clientCa = config.clientCa;
          }
        }
        try {
          const made = new Listener({ host, port, tls, allow: parseAllowList(allowText) });
          if (tls) {
            const x509 = new X509Certificate(tls.cert);
            certified.set(node.id, { fingerprint256: x509.fingerprint256, validTo: new Date(x509.validTo).toISOString() });
          }
          return made;
        } catch (err) {
          // The certificate and key do not match, or Node cannot read them.
          return void fail('errors.certificate', { message: (err as Error).message });
        }
      };
      listener = setup();

      const where = (): string => `${listener?.https ? 'https' : 'http'}://${(config.host ?? '').trim() || '*'}:${String(config.port).trim()}`;
      listener?.on('state', (state: string) => {
        if (state === 'listening') {
          node.status({ fill: 'green', shape: 'dot', text: s('status.listening', { where: where() }) });
          node.log(t('log.listening', { where: where() }));
        }
        if (state === 'failed') {
          const err = listener?.error;
          const known = ['EADDRINUSE', 'EACCES', 'EADDRNOTAVAIL'].includes(err?.code ?? '') ? err?.code : 'other';
          node.status({ fill: 'red', shape: 'ring', text: s('status.failed', { port: String(config.port) }) });
          node.error(
            t(`errors.listen-${known}`, { port: String(config.port).trim(), host: (config.host ?? '').trim() || '*', message: err?.message ?? '' }),
          );
        }
      });

      node.use = () => {
        if (!listener) return problem ?? t('errors.not-configured');
        if (listener.state === 'idle') void listener.start();
        return listener;
      };

      node.on('close', (_removed: boolean, done: () => void) => {
        certified.delete(node.id);
        const closing = listener;
        listener = undefined;
        problem = t('errors.not-configured');
        if (!closing) return done();
        closing.close().then(done, done);
      });
    },
    { credentials: { key: { type: 'password' } } },
  );
};
