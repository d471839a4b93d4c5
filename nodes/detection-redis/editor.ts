/**
 * detection-redis: the editor dialog (compiled into dist/nodes/detection-redis/detection-redis.html by scripts/build.js).
 */
(function () {
  interface DetectionRedisNode extends EditorNode {
    url?: string;
    mode?: string;
    primaryName?: string;
  }
  /** Whether the node being validated is in sentinel mode (its field in the open dialog, else its saved value). */
  function sentinelMode(node: EditorNode | undefined): boolean {
    const field = $('#node-config-input-mode');
    const mode = field.length ? field.val() : (node as DetectionRedisNode | undefined)?.mode;
    return mode === 'sentinel';
  }
  /** The runtime's rule for the sentinels' list (lib/redis/sentinel.ts parseSentinels). */
  function sentinelsOk(text: string): boolean {
    const parts = text.split(/[\s,;]+/).filter(Boolean);
    return (
      parts.length > 0 &&
      parts.every(function (part) {
        const match = /^(?:\[[0-9a-f:.]+\]|[a-z0-9_.-]+):(\d{1,5})$/i.exec(part);
        return !!match && Number(match[1]) >= 1 && Number(match[1]) <= 65535;
      })
    );
  }
  /** A validator's answer: true, or what is wrong in the user's language. (Node-RED
   *  reads a string as the reason only from validators declared with two arguments.) */
  function check(node: EditorNode | undefined, ok: boolean, key: string): EditorVerdict {
    return ok ? true : node && typeof node._ === 'function' ? node._('detection-redis.errors.' + key) : false;
  }
  /** The runtime's rule of `name` (lib/config/node-options.ts). */
  function ruleCheck(name: string) {
    const rule = DetectionBridgeEditor.ruleOf('detection-redis', name);
    return function (this: EditorNode, v: unknown, _opt?: unknown): EditorVerdict {
      return check(this, DetectionBridgeOptions.checkOption(rule, v).ok, name);
    };
  }

  DetectionBridgeEditor.define<DetectionRedisNode>('detection-redis', {
    category: 'config',
    defaults: {
      url: {
        value: 'redis://127.0.0.1:6379',
        validate: function (v, _opt) {
          return check(this, sentinelMode(this) || /^rediss?:\/\/[^\s/]+/i.test(String(v || '').trim()), 'url');
        },
      },
      // Sentinel mode
      mode: DetectionBridgeEditor.option('detection-redis', 'mode'),
      sentinels: {
        value: '',
        validate: function (v, _opt) {
          return check(this, !sentinelMode(this) || sentinelsOk(String(v || '')), 'sentinels');
        },
      },
      primaryName: {
        value: '',
        validate: function (v, _opt) {
          const name = String(v || '').trim();
          return check(this, !sentinelMode(this) || (name.length > 0 && name.length <= 200), 'primaryName');
        },
      },
      database: { value: DetectionBridgeEditor.ruleOf('detection-redis', 'database').default, validate: ruleCheck('database') },
      tls: DetectionBridgeEditor.option('detection-redis', 'tls'),
      tlsInsecure: DetectionBridgeEditor.option('detection-redis', 'tlsInsecure'),
      ca: { value: '' },
      prefix: {
        value: 'detection-bridge:',
        validate: function (v, _opt) {
          return check(this, v === undefined || String(v).length <= 200, 'prefix');
        },
      },
      instance: {
        value: '',
        validate: function (v, _opt) {
          return check(this, v === undefined || String(v).trim().length <= 200, 'instance');
        },
      },
      // Confirm on replicas / on disk (lib/redis/confirm.ts)
      confirmReplicas: { value: DetectionBridgeEditor.ruleOf('detection-redis', 'confirmReplicas').default, validate: ruleCheck('confirmReplicas') },
      confirmTimeoutMs: {
        value: DetectionBridgeEditor.ruleOf('detection-redis', 'confirmTimeoutMs').default,
        validate: ruleCheck('confirmTimeoutMs'),
      },
      confirmAof: { value: DetectionBridgeEditor.ruleOf('detection-redis', 'confirmAof').default, validate: ruleCheck('confirmAof') },
      confirmFewer: { value: DetectionBridgeEditor.ruleOf('detection-redis', 'confirmFewer').default, validate: ruleCheck('confirmFewer') },
    },
    credentials: {
      user: { type: 'text' },
      password: { type: 'password' },
      sentinelUser: { type: 'text' },
      sentinelPassword: { type: 'password' },
    },
    label: function () {
      if (this.mode === 'sentinel') return this.primaryName ? 'sentinel: ' + this.primaryName : '';
      return this.url;
    },
    oneditprepare: function () {
      const showTls = function () {
        const on = $('#node-config-input-tls').is(':checked') || /^rediss:/i.test(String($('#node-config-input-url').val() || ''));
        $('.detection-redis-row-tls').toggle(on);
        $('#detection-redis-insecure-warning').toggle(on && $('#node-config-input-tlsInsecure').is(':checked'));
      };
      $('#node-config-input-tls, #node-config-input-tlsInsecure').on('change', showTls);
      $('#node-config-input-url').on('input change', showTls);
      showTls();
      // Sentinel mode: the sentinels' rows instead of the server's address
      const showMode = function () {
        const sentinel = $('#node-config-input-mode').val() === 'sentinel';
        $('.detection-redis-row-sentinel').toggle(sentinel);
        $('.detection-redis-row-single').toggle(!sentinel);
        // the address and the sentinel rows are validated by mode: check them again
        $('#node-config-input-url, #node-config-input-sentinels, #node-config-input-primaryName').trigger('change');
      };
      if (!$('#node-config-input-mode').val()) $('#node-config-input-mode').val('single');
      // Node-RED gives a new configuration node only its truthy defaults: Confirm on replicas' 0 comes in empty
      if ($('#node-config-input-confirmReplicas').val() === '')
        $('#node-config-input-confirmReplicas').val(String(DetectionBridgeEditor.ruleOf('detection-redis', 'confirmReplicas').default));
      $('#node-config-input-mode').on('change', showMode);
      showMode();
      // With fewer replicas: only when some are asked for
      const showFewer = function () {
        $('.detection-redis-row-fewer').toggle(Number($('#node-config-input-confirmReplicas').val()) > 0);
      };
      $('#node-config-input-confirmReplicas').on('input change', showFewer);
      showFewer();
    },
  });
})();
