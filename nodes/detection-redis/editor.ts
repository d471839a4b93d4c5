/**
 * detection-redis: the editor dialog (compiled into dist/nodes/detection-redis/detection-redis.html by scripts/build.js).
 */
(function () {
  interface DetectionRedisNode extends EditorNode {
    url?: string;
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

  RED.nodes.registerType<DetectionRedisNode>('detection-redis', {
    category: 'config',
    defaults: {
      name: { value: '' },
      url: {
        value: 'redis://127.0.0.1:6379',
        validate: function (v, _opt) {
          return check(this, /^rediss?:\/\/[^\s/]+/i.test(String(v || '').trim()), 'url');
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
      configVersion: { value: DetectionBridgeConfig.currentVersion('detection-redis') },
    },
    credentials: {
      user: { type: 'text' },
      password: { type: 'password' },
    },
    label: function () {
      return this.name || this.url || this._('detection-redis.paletteLabel');
    },
    paletteLabel: function () {
      return this._('detection-redis.paletteLabel');
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
    },
  });
})();
