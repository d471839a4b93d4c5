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
  const api = DetectionBridgeEnrollment;
  /** The dialog's words (validators.<key>) for each of lib's enrollment API problems (lib/bridge/enroll-api.ts). */
  const API_WORDS: Record<string, string> = {
    'enroll.path.empty': 'path-empty',
    'enroll.path.absolute': 'path-absolute',
    'enroll.path.query': 'path-query',
    'enroll.path.external-id': 'path-external-id',
    'enroll.path.placeholder': 'path-placeholder',
    'enroll.paging.syntax': 'pageQuery-syntax',
    'enroll.paging.placeholder': 'pageQuery-placeholder',
    'enroll.paging.no-page': 'pageQuery-page',
    'enroll.paging.size': 'pageSize',
    'enroll.photo-field': 'photoField',
  };
  /** Where lib's problems name each field (their `option`). */
  const API_OPTIONS: Record<string, string> = {
    lprMonitorPath: 'lpr.monitor',
    lprListPath: 'lpr.list',
    faceMonitorPath: 'face.monitor',
    faceListPath: 'face.list',
    pageQuery: 'pageQuery',
    pageSize: 'pageSize',
    photoField: 'photoField',
  };
  /**
   * A field of the enrollment API checked as the runtime reads the node
   * (lib's resolveEnrollmentApi), with `v` as the field's value: only the
   * problems lib names this field by count.
   */
  function apiCheck(field: string) {
    return function (this: EventsBridgeNode, v: unknown, _opt?: unknown): EditorVerdict {
      const node: Record<string, unknown> = { ...this, [field]: v };
      const text = (name: string) => (node[name] === undefined || node[name] === null ? undefined : String(node[name]));
      const resolved = api.resolveEnrollmentApi({
        paths: {
          lpr: { monitor: text('lprMonitorPath'), list: text('lprListPath') },
          face: { monitor: text('faceMonitorPath'), list: text('faceListPath') },
        },
        pageQuery: text('pageQuery'),
        pageSize: text('pageSize'),
        photoField: text('photoField'),
      });
      const problem = resolved.ok
        ? undefined
        : resolved.problems.filter(function (p) {
            return p.option === API_OPTIONS[field];
          })[0];
      if (!problem) return true;
      // a problem the dialog has no words for is still one: marked without a reason
      return API_WORDS[problem.key] ? check(this, false, API_WORDS[problem.key]) : false;
    };
  }
  const DEFAULTS = api.DEFAULT_ENROLLMENT_PATHS;

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
      lprMonitorPath: { value: DEFAULTS.lpr.monitor, validate: apiCheck('lprMonitorPath') },
      lprListPath: { value: DEFAULTS.lpr.list, validate: apiCheck('lprListPath') },
      faceMonitorPath: { value: DEFAULTS.face.monitor, validate: apiCheck('faceMonitorPath') },
      faceListPath: { value: DEFAULTS.face.list, validate: apiCheck('faceListPath') },
      photoField: { value: api.DEFAULT_PHOTO_FIELD, validate: apiCheck('photoField') },
      pageQuery: { value: '', validate: apiCheck('pageQuery') },
      pageSize: { value: api.DEFAULT_PAGE_SIZE, validate: apiCheck('pageSize') },
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
