/**
 * platform-server: the editor dialog (compiled into dist/nodes/platform-server/platform-server.html by scripts/build.js).
 */
(function () {
  interface PlatformServerNode extends EditorNode {
    url?: string;
    openapi?: string;
  }
  const check = DetectionBridgeEditor.validators('platform-server').check;
  const option = DetectionBridgeEditor.option;

  RED.nodes.registerType<PlatformServerNode>('platform-server', {
    category: 'config',
    defaults: {
      name: { value: '' },
      url: {
        value: '',
        validate: function (v, _opt) {
          const url = String(v || '').trim();
          if (url === '') return check(this, false, 'url-empty');
          if (!/^https?:\/\//i.test(url)) return check(this, false, 'url-scheme');
          return check(this, /^https?:\/\/[^\s/?#]+[^\s?#]*$/i.test(url), 'url');
        },
      },
      insecure: option('platform-server', 'insecure'),
      ca: { value: '' },
      openapi: { value: '' },
      timeout: option('platform-server', 'timeout'),
      configVersion: { value: DetectionBridgeConfig.currentVersion('platform-server') },
    },
    credentials: {
      userName: { type: 'text' },
      password: { type: 'password' },
    },
    label: function () {
      return this.name || this.url || this._('platform-server.paletteLabel');
    },
    paletteLabel: function () {
      return this._('platform-server.paletteLabel');
    },
    oneditprepare: function () {
      $('#node-config-input-insecure')
        .on('change', function () {
          $('#platform-server-insecure-warning').toggle($(this).is(':checked'));
        })
        .trigger('change');
      // The release the deployed OpenAPI file describes (or why it cannot be used).
      const node = this;
      const shown = $('#platform-server-openapi-release');
      shown.text(node._('platform-server.tip.release-none'));
      if (node.id && node.openapi) {
        $.getJSON('platform-server/' + encodeURIComponent(node.id) + '/operations')
          .done(function (data: { release: string; operations: unknown[] }) {
            shown.text(node._('platform-server.tip.release', { release: data.release, count: data.operations.length }));
          })
          .fail(function (xhr) {
            if (xhr.responseJSON && xhr.responseJSON.message) shown.text(xhr.responseJSON.message);
          });
      }
    },
  });
})();
