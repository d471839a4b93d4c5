/**
 * events-bridge: the editor dialog (compiled into dist/nodes/events-bridge/events-bridge.html by scripts/build.js).
 */
(function () {
  interface EventsBridgeNode extends EditorNode {
    url?: string;
  }
  const validators = DetectionBridgeEditor.validators('events-bridge');
  const check = validators.check;
  /** The dialog's words (validators.<key>) for each of lib's base URL problems. */
  const URL_WORDS: Record<string, string> = {
    empty: 'url-empty',
    'not-absolute': 'url-scheme',
    protocol: 'url-scheme',
    query: 'url',
    'user-info': 'url',
  };
  /** What is wrong with a path (as lib/bridge/enroll-api.ts checks it), or null; `monitor`: it takes {externalId}. */
  function pathProblem(v: unknown, monitor: boolean): string | null {
    const p = String(v || '').trim();
    if (p === '') return 'path-empty';
    if (/^[a-z][a-z0-9+.-]*:/i.test(p) || p.indexOf('//') === 0) return 'path-absolute';
    if (/[?#\s]/.test(p)) return 'path-query';
    const placeholders = p.match(/\{[^}]*\}/g) || [];
    if (monitor) return placeholders.length === 1 && placeholders[0] === '{externalId}' ? null : 'path-external-id';
    return placeholders.length ? 'path-placeholder' : null;
  }
  function pathCheck(monitor: boolean) {
    return function (this: EditorNode, v: unknown, _opt?: unknown): EditorVerdict {
      const problem = pathProblem(v, monitor);
      return check(this, !problem, problem || '');
    };
  }
  /** What is wrong with a paging query, or null; empty: no paging. */
  function pagingProblem(v: unknown): string | null {
    const q = String(v || '')
      .trim()
      .replace(/^\?/, '');
    if (q === '') return null;
    const parts = q.split('&');
    for (let i = 0; i < parts.length; i++) {
      const kv = parts[i].split('=');
      if (kv.length !== 2 || kv[0] === '' || /[\s#]/.test(parts[i])) return 'pageQuery-syntax';
      const found = parts[i].match(/\{[^}]*\}/g) || [];
      for (let j = 0; j < found.length; j++) if (['{page}', '{page0}', '{offset}', '{size}'].indexOf(found[j]) < 0) return 'pageQuery-placeholder';
    }
    return /\{(?:page|page0|offset)\}/.test(q) ? null : 'pageQuery-page';
  }

  DetectionBridgeEditor.define<EventsBridgeNode>('events-bridge', {
    category: 'config',
    defaults: {
      url: {
        value: '',
        // as the runtime parses it (lib/http/base-url.ts), in the dialog's words
        validate: function (v, _opt) {
          const problem = DetectionBridgeUrls.baseUrlProblem(v);
          return check(this, !problem, problem ? URL_WORDS[problem] : '');
        },
      },
      ca: { value: '' },
      // The documented paths (the face enroll method is inferred); see the help.
      lprMonitorPath: { value: '/api/v1/lpr/monitor/{externalId}', validate: pathCheck(true) },
      lprListPath: { value: '/api/v1/lpr/monitored', validate: pathCheck(false) },
      faceMonitorPath: { value: '/api/v1/faces/monitor/{externalId}', validate: pathCheck(true) },
      faceListPath: { value: '/api/v1/faces/monitored', validate: pathCheck(false) },
      photoField: {
        value: 'faceImage',
        validate: function (v, _opt) {
          return check(this, /^[A-Za-z_$][\w$]*$/.test(String(v || '').trim()), 'photoField');
        },
      },
      pageQuery: {
        value: '',
        validate: function (v, _opt) {
          const problem = pagingProblem(v);
          return check(this, !problem, problem || '');
        },
      },
      pageSize: {
        value: 500,
        validate: function (v, _opt) {
          const n = Number(v);
          return check(this, v !== '' && Number.isInteger(n) && n >= 1 && n <= 100000, 'pageSize');
        },
      },
      // Optional: read as the runtime reads it (lib/events/tag-prefix.ts).
      tagPrefix: {
        value: '',
        validate: function (v, _opt) {
          return check(this, DetectionBridgeEditor.tagPrefixOf(v) !== null, 'tagPrefix');
        },
      },
    },
    credentials: {
      token: { type: 'password' },
    },
    label: function () {
      return this.url;
    },
    oneditprepare: function () {
      $('#node-config-input-insecure')
        .on('change', function () {
          $('#events-bridge-insecure-warning').toggle($(this).is(':checked'));
        })
        .trigger('change');
      // Paging: the page size matters only with a query.
      $('#node-config-input-pageQuery')
        .on('input change', function () {
          $('.events-bridge-row-page-size').toggle(String($(this).val() || '').trim() !== '');
        })
        .trigger('change');
    },
  });
})();
