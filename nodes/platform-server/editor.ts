/**
 * platform-server: the editor dialog (compiled into dist/nodes/platform-server/platform-server.html by scripts/build.js).
 */
(function () {
  interface PlatformServerNode extends EditorNode {
    url?: string;
    openapi?: string;
  }
  const check = DetectionBridgeEditor.validators('platform-server').check;
  /** The dialog's words (validators.<key>) for each of lib's base URL problems. */
  const URL_WORDS: Record<string, string> = {
    empty: 'url-empty',
    'not-absolute': 'url-scheme',
    protocol: 'url-scheme',
    query: 'url',
    'user-info': 'url',
  };

  DetectionBridgeEditor.define<PlatformServerNode>('platform-server', {
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
      openapi: { value: '' },
    },
    credentials: {
      userName: { type: 'text' },
      password: { type: 'password' },
    },
    label: function () {
      return this.url;
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
