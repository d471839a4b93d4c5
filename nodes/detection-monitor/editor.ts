/**
 * detection-monitor: the editor dialog (compiled into dist/nodes/detection-monitor/detection-monitor.html by scripts/build.js).
 */
(function () {
  interface DetectionMonitorNode extends EditorNode {
    metricsPath?: string;
    healthPath?: string;
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
    },
    credentials: {
      token: { type: 'password' },
      user: { type: 'text' },
      password: { type: 'password' },
    },
    oneditprepare: function () {
      function sync(): void {
        $('.detection-monitor-row-metrics').toggle($('#node-input-metrics').prop('checked') === true);
        $('.detection-monitor-row-health').toggle($('#node-input-health').prop('checked') === true);
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
      sync();
    },
  });
})();
