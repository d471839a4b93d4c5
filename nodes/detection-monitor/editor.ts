/**
 * detection-monitor: the editor dialog (compiled into dist/nodes/detection-monitor/detection-monitor.html by scripts/build.js).
 */
(function () {
  interface DetectionMonitorNode extends EditorNode {
    metricsPath?: string;
    healthPath?: string;
    readyWhen?: string;
    readyPaths?: string;
  }
  const check = DetectionBridgeEditor.validators('detection-monitor').check;
  const METRICS_PATH = '/detection-bridge/metrics';
  const HEALTH_PATH = '/detection-bridge/health';

  /** Whether `node`'s edit dialog is open (its fields then hold the values being edited, not yet saved on the node). */
  function inDialog(node: EditorNode): boolean {
    return DetectionBridgeEditor.inDialog(node, '#node-input-metricsOpen');
  }
  /** A flag as the open dialog shows it, else as saved (unset: `fallback`). */
  function flag(node: EditorNode, name: string, fallback: boolean): boolean {
    if (inDialog(node)) return $('#node-input-' + name).prop('checked') === true;
    const v = node[name];
    return v === undefined ? fallback : v === true || v === 'true';
  }
  /** Whether credential `name` is set (a deployed node's stay in the runtime: see DetectionBridgeEditor.hasCredential). */
  function hasCredential(node: EditorNode, name: string): boolean {
    return DetectionBridgeEditor.hasCredential(node, name, '#node-input-metricsOpen');
  }
  function protectedBy(node: EditorNode): boolean {
    return hasCredential(node, 'token') || (hasCredential(node, 'user') && hasCredential(node, 'password'));
  }
  /** A path as a route (lib/http/route-path.ts, as the runtime mounts it). */
  const routeOf = DetectionBridgeRoutes.typedRouteKey;
  /** Another monitor of the workspace that serves `path` (only one of them could). */
  function pathTaken(node: EditorNode, path: unknown): boolean {
    const route = routeOf(path);
    let taken = false;
    RED.nodes.eachNode(function (n) {
      if (taken || n.id === node.id || n.type !== 'detection-monitor' || n.d) return;
      const other = n as DetectionMonitorNode;
      if (routeOf(other.metricsPath) === route || routeOf(other.healthPath) === route) taken = true;
    });
    return taken;
  }
  /** Ready when, as the open dialog shows it, else as saved (a monitor saved before the option runs with the table's default). */
  function readyWhen(node: EditorNode): string {
    if (inDialog(node)) return String($('#node-input-readyWhen').val() || '');
    const v = node.readyWhen;
    return typeof v === 'string' && v !== '' ? v : String(DetectionBridgeEditor.ruleOf('detection-monitor', 'readyWhen').default);
  }
  /** The receivers of the workspace as the monitor knows them (lib/http/route-path.ts receiverLabel), as routes. */
  function receiverRoutes(): string[] {
    const routes: string[] = [];
    RED.nodes.eachNode(function (n) {
      if (n.type !== 'detection-in' || n.d) return;
      const listener = typeof n.listener === 'string' && n.listener !== '' ? RED.nodes.node(n.listener) : null;
      const port = listener && (typeof listener.port === 'string' || typeof listener.port === 'number') ? listener.port : undefined;
      routes.push(routeOf(DetectionBridgeRoutes.receiverLabel(DetectionBridgeRoutes.normalizeNodePath(n.path), port)));
    });
    return routes;
  }
  /** The named paths no receiver of the workspace has: only a warning (a receiver may be deployed later). */
  function unknownPaths(text: unknown): string[] {
    const known = receiverRoutes();
    return DetectionBridgeRoutes.routePathList(text).filter(function (p) {
      return known.indexOf(routeOf(p)) === -1;
    });
  }
  /** A path field's check: a path (one segment at least, no spaces), served by no other monitor. */
  function pathField(which: 'metrics' | 'health') {
    return function (this: EditorNode, v: unknown, _opt?: unknown): EditorVerdict {
      if (!flag(this, which, true)) return true;
      if (DetectionBridgeRoutes.routePathProblem(v)) return check(this, false, 'path');
      return check(this, !pathTaken(this, v), 'path-in-use');
    };
  }

  DetectionBridgeEditor.define<DetectionMonitorNode>('detection-monitor', {
    icon: 'detection-monitor.svg',
    defaults: {
      metricsPath: { value: METRICS_PATH, validate: pathField('metrics') },
      // metrics without a credential only when the user says so
      metricsOpen: {
        value: DetectionBridgeEditor.ruleOf('detection-monitor', 'metricsOpen').default,
        validate: function (v, _opt) {
          if (!DetectionBridgeOptions.checkOption(DetectionBridgeEditor.ruleOf('detection-monitor', 'metricsOpen'), v).ok) return false;
          const open = v === true || v === 'true';
          return check(this, !flag(this, 'metrics', true) || open || protectedBy(this), 'credential-needed');
        },
      },
      healthPath: { value: HEALTH_PATH, validate: pathField('health') },
      // Ready when "named": at least one path, each a path (as the runtime reads them); one no receiver has only warns
      readyPaths: {
        value: '',
        validate: function (v, _opt) {
          if (!flag(this, 'health', true) || readyWhen(this) !== 'named') return true;
          const problem = DetectionBridgeRoutes.routePathListProblem(v);
          if (!problem) return true;
          if (!('entry' in problem)) return check(this, false, 'ready-paths-empty');
          return check(this, false, 'ready-path', { entry: problem.entry });
        },
      },
    },
    credentials: {
      token: { type: 'password' },
      user: { type: 'text' },
      password: { type: 'password' },
    },
    oneditprepare: function () {
      const node = this;
      function sync(): void {
        const health = $('#node-input-health').prop('checked') === true;
        const when = String($('#node-input-readyWhen').val() || 'any');
        $('.detection-monitor-row-metrics').toggle($('#node-input-metrics').prop('checked') === true);
        $('.detection-monitor-row-health').toggle(health);
        $('.detection-monitor-row-named').toggle(health && when === 'named');
        // each key written whole: the package test finds every key the dialog uses in its source
        const tips: Record<string, string> = {
          any: 'detection-monitor.tip.ready-any',
          all: 'detection-monitor.tip.ready-all',
          named: 'detection-monitor.tip.ready-named',
        };
        $('#detection-monitor-ready-tip').text(node._(tips[when] ?? tips.any));
        const unknown = when === 'named' ? unknownPaths($('#node-input-readyPaths').val()) : [];
        $('#detection-monitor-ready-unknown-text').text(
          unknown.length ? node._('detection-monitor.tip.ready-unknown', { paths: unknown.join(', ') }) : '',
        );
        $('#detection-monitor-ready-unknown').toggle(health && unknown.length > 0);
        let base = String($('#node-input-healthPath').val() || '')
          .trim()
          .replace(/\/+$/, '');
        if (base.charAt(0) !== '/') base = '/' + base;
        $('#detection-monitor-live').text(base + '/live');
        $('#detection-monitor-ready').text(base + '/ready');
      }
      $('#node-input-metrics, #node-input-health').on('change', sync);
      // "no credential" is checked on its box: checked again as the credential or metrics change
      $('#node-input-token, #node-input-user, #node-input-password').on('input change', function () {
        $('#node-input-metricsOpen').trigger('change');
      });
      $('#node-input-metrics').on('change', function () {
        $('#node-input-metricsOpen').trigger('change');
      });
      $('#node-input-healthPath').on('input change', sync);
      // a monitor saved before the option: the table's default, as the runtime reads it
      if (!node.readyWhen) $('#node-input-readyWhen').val(String(DetectionBridgeEditor.ruleOf('detection-monitor', 'readyWhen').default));
      // the named paths are checked only under "named": checked again as the choice or health changes
      $('#node-input-readyWhen, #node-input-health').on('change', function () {
        $('#node-input-readyPaths').trigger('change');
        sync();
      });
      $('#node-input-readyPaths').on('input change', sync);
      sync();
    },
  });
})();
