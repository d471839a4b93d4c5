/**
 * detection-listener: the editor dialog (compiled into dist/nodes/detection-listener/detection-listener.html by scripts/build.js).
 */
(function () {
  interface DetectionListenerNode extends EditorNode {
    tls?: string;
    host?: string;
    port?: number | string;
  }
  const option = DetectionBridgeEditor.option;
  const validators = DetectionBridgeEditor.validators('detection-listener');
  const check = validators.check;

  /** Whether `node`'s edit dialog is open (its fields then hold the values being edited, not yet saved on the node). */
  function inDialog(node: EditorNode): boolean {
    return DetectionBridgeEditor.inDialog(node, '#node-config-input-tls');
  }
  function current(node: EditorNode, name: string, fallback: string | boolean): unknown {
    const field = $('#node-config-input-' + name);
    const value = inDialog(node) ? (field.is(':checkbox') ? field.is(':checked') : field.val()) : node[name];
    return value === undefined || value === null || value === '' ? fallback : value;
  }

  // The allow-list's syntax, as lib/http/listener-allow.ts reads it.
  function ipv4(a: string): boolean {
    const parts = a.split('.');
    return (
      parts.length === 4 &&
      parts.every(function (p) {
        return /^\d{1,3}$/.test(p) && Number(p) <= 255;
      })
    );
  }
  function ipv6(a: string): boolean {
    let text = a.replace(/%.*$/, '');
    const v4 = /:(\d+\.\d+\.\d+\.\d+)$/.exec(text);
    let groupsAllowed = 8;
    if (v4) {
      if (!ipv4(v4[1])) return false;
      text = text.slice(0, text.length - v4[1].length) + '0';
      groupsAllowed = 7;
    }
    const halves = text.split('::');
    if (halves.length > 2) return false;
    const groups = function (s: string): string[] {
      return s === '' ? [] : s.split(':');
    };
    const all = groups(halves[0]).concat(halves.length === 2 ? groups(halves[1]) : []);
    if (
      !all.every(function (g) {
        return /^[0-9a-f]{1,4}$/i.test(g);
      })
    )
      return false;
    return halves.length === 2 ? all.length < groupsAllowed + (v4 ? 1 : 0) : all.length === groupsAllowed + (v4 ? 1 : 0);
  }
  /** The first entry that is not an address or a range: [entry, 'address' | 'prefix'], or null. */
  function allowProblem(text: unknown): [string, string] | null {
    const entries = String(text || '')
      .split(/\r?\n/)
      .map(function (l) {
        return l.replace(/#.*/, '');
      })
      .join(' ')
      .split(/[\s,;]+/)
      .filter(Boolean);
    for (let i = 0; i < entries.length; i++) {
      const parts = entries[i].split('/');
      const mapped = /^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(parts[0]);
      const four = ipv4(parts[0]);
      if (parts.length > 2 || !(four || ipv6(parts[0]))) return [entries[i], 'address'];
      if (parts.length === 2) {
        const range = mapped ? [96, 128] : four ? [0, 32] : [0, 128];
        if (!/^\d{1,3}$/.test(parts[1]) || Number(parts[1]) < range[0] || Number(parts[1]) > range[1]) return [entries[i], 'prefix'];
      }
    }
    return null;
  }
  const PEM_CERT = /-----BEGIN CERTIFICATE-----/;
  function inTls(mode: string, rule: (v: unknown) => boolean, key: string) {
    return function (this: EditorNode, v: unknown, _opt?: unknown): EditorVerdict {
      if (current(this, 'tls', 'self-signed') !== mode) return true;
      return check(this, rule(v), key);
    };
  }

  DetectionBridgeEditor.define<DetectionListenerNode>('detection-listener', {
    category: 'config',
    defaults: {
      host: {
        value: '',
        validate: function (v, _opt) {
          const a = String(v || '').trim();
          return check(this, a === '' || a === 'localhost' || ipv4(a) || ipv6(a), 'host');
        },
      },
      // no default at run time: a listener without a port does not start
      port: { ...option('detection-listener', 'port'), required: true },
      certFile: {
        value: '',
        validate: inTls(
          'files',
          function (v: unknown) {
            return String(v || '').trim() !== '';
          },
          'cert-file',
        ),
      },
      keyFile: {
        value: '',
        validate: inTls(
          'files',
          function (v: unknown) {
            return String(v || '').trim() !== '';
          },
          'key-file',
        ),
      },
      cert: {
        value: '',
        validate: inTls(
          'pem',
          function (v: unknown) {
            return PEM_CERT.test(String(v || ''));
          },
          'cert-pem',
        ),
      },
      allow: {
        value: '',
        validate: function (v, _opt) {
          const problem = allowProblem(v);
          return problem ? check(this, false, 'allow-' + problem[1], { entry: problem[0] }) : true;
        },
      },
      clientCa: {
        value: '',
        validate: function (v, _opt) {
          const on = current(this, 'clientCerts', false);
          const tls = current(this, 'tls', 'self-signed');
          return check(this, !(on === true || on === 'true') || tls === 'none' || PEM_CERT.test(String(v || '')), 'client-ca');
        },
      },
    },
    credentials: {
      key: { type: 'password' },
    },
    label: function () {
      const scheme = this.tls === 'none' ? 'http' : 'https';
      return scheme + '://' + (this.host || '*') + ':' + this.port;
    },
    oneditprepare: function () {
      const node = this;
      function showFingerprint() {
        const mode = $('#node-config-input-tls').val();
        const out = $('#detection-listener-fingerprint').text('');
        if (mode === 'none') {
          $('.detection-listener-row-fingerprint').hide();
          return;
        }
        $('.detection-listener-row-fingerprint').show();
        $.getJSON('detection-listener/' + encodeURIComponent(node.id) + '/certificate', {
          tls: String(mode),
          host: String($('#node-config-input-host').val() || ''),
        })
          .done(function (data: { fingerprint256?: string } | null) {
            if (data && data.fingerprint256) out.text(data.fingerprint256);
            else out.text(node._('detection-listener.tip.fingerprint-on-deploy'));
          })
          .fail(function () {
            out.text(node._('detection-listener.tip.fingerprint-on-deploy'));
          });
      }
      function showRows() {
        const mode = $('#node-config-input-tls').val();
        $('.detection-listener-row-files').toggle(mode === 'files');
        $('.detection-listener-row-pem').toggle(mode === 'pem');
        $('.detection-listener-row-tls').toggle(mode !== 'none');
        $('.detection-listener-row-client-ca').toggle(mode !== 'none' && $('#node-config-input-clientCerts').is(':checked'));
      }
      $('#node-config-input-tls').on('change', function () {
        showRows();
        showFingerprint();
      });
      $('#node-config-input-clientCerts').on('change', showRows);
      showRows();
      showFingerprint();
    },
  });
})();
