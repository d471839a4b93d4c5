/**
 * platform-push: the editor dialog (compiled into dist/nodes/platform-push/platform-push.html by scripts/build.js).
 */
(function () {
  interface PlatformPushNode extends EditorNode {
    operation?: string;
  }
  /** A POS instance or plugin as GET platform-server/<id>/plugins lists it. */
  interface Plugin {
    id: string;
    name?: string;
  }
  const ruleOf = DetectionBridgeEditor.ruleOf;
  const POS = 'pos';
  const PROPERTY_TYPES = DetectionBridgeEditor.PROPERTY_TYPES;
  const validators = DetectionBridgeEditor.validators('platform-push');
  const check = validators.check;
  /** The platform server chosen: needed. */
  const serverCheck = validators.config('server');
  const pathProblem = DetectionBridgeEditor.apiPathProblem;
  const propertyCheck = validators.property;
  /** A field of the open dialog, else as saved. */
  function valueOf(node: EditorNode, field: string, fallback: string): string {
    return String(($('#node-input-' + field).length ? $('#node-input-' + field).val() : node[field]) || fallback);
  }

  DetectionBridgeEditor.define<PlatformPushNode>('platform-push', {
    icon: 'platform-push.svg',
    color: '#A6BBCF',
    defaults: {
      server: { value: '', type: 'platform-server', validate: serverCheck },
      posId: {
        value: '',
        validate: function (v, _opt) {
          if (valueOf(this, 'operation', POS) !== POS) return true;
          const type = valueOf(this, 'posIdType', 'str');
          if (type !== 'str') return propertyCheck(this, v, type, 'posId-property');
          return check(this, String(v || '').trim() !== '', 'posId-empty');
        },
      },
      posIdType: { value: 'str' },
      path: {
        value: '',
        validate: function (v, _opt) {
          if (valueOf(this, 'operation', POS) === POS) return true;
          const type = valueOf(this, 'pathType', 'str');
          if (type !== 'str') return propertyCheck(this, v, type, 'path-property');
          const problem = pathProblem(v);
          return check(this, !problem, problem || '');
        },
      },
      pathType: { value: 'str' },
    },
    inputs: 1,
    outputs: 1,
    label: function () {
      return this._('platform-push.label.short') + ' ' + this._('platform-push.operation.' + (this.operation || POS));
    },
    inputLabels: function () {
      return this._('platform-push.inputs.items');
    },
    outputLabels: function () {
      return this._('platform-push.outputs.batch');
    },
    oneditprepare: function () {
      const node = this;
      const posId = $('#node-input-posId');
      const path = $('#node-input-path');
      // JSONata too: it is what a POS instance saved before these TypedInputs became ("msg.posId, else the one set").
      posId.typedInput({ default: 'str', types: ['str', ...PROPERTY_TYPES, 'jsonata'], typeField: '#node-input-posIdType' });
      path.typedInput({ default: 'str', types: ['str', ...PROPERTY_TYPES], typeField: '#node-input-pathType' });
      const posBox = posId.next('.red-ui-typedInput-container').find('input.red-ui-typedInput-input');
      const posDefault = DetectionBridgeEditor.msgByDefault(posId, 'posId');
      const pathDefault = DetectionBridgeEditor.msgByDefault(path, 'path');
      const tip = $('#platform-push-pos-tip');
      // The server's POS instances are offered for an id typed in the node only
      // (and no empty tip: it would be an empty yellow box).
      function showPosSource() {
        posDefault();
        const typed = posId.typedInput('type') === 'str';
        if (typed) posBox.attr('list', 'platform-push-pos-list');
        else posBox.removeAttr('list');
        $('#platform-push-refresh').toggle(typed);
        tip.toggle(typed && tip.text() !== '');
      }
      function setTip(text: string) {
        tip.text(text);
        showPosSource();
      }
      posId.on('change', showPosSource);
      path.on('change', pathDefault);
      function showOperation() {
        const op = $('#node-input-operation').val();
        $('.platform-push-pos').toggle(op === POS);
        $('.platform-push-path').toggle(op !== POS);
      }
      $('#node-input-operation').on('change', showOperation);
      showOperation();
      for (const name of ['batchSize', 'maxRetries']) {
        const rule = ruleOf('platform-push', name);
        if (rule.kind === 'number') $('#node-input-' + name).spinner({ min: rule.min, max: rule.max });
      }

      // Offer the server's POS instances; the field stays free text when the list fails.
      function loadInstances() {
        const serverId = String($('#node-input-server').val() || '');
        $('#platform-push-pos-list').empty();
        // no server: no tip
        if (!serverId || serverId === '_ADD_') {
          setTip('');
          return;
        }
        // The list comes from the deployed server node: a server added or
        // changed in the editor is not deployed yet, so asking would only fail.
        const server = RED.nodes.node(serverId);
        if (server && server.changed) {
          setTip(node._('platform-push.tip.not-deployed'));
          return;
        }
        setTip(node._('platform-push.tip.loading'));
        $.getJSON('platform-server/' + encodeURIComponent(serverId) + '/plugins')
          .done(function (data: { pos?: Plugin[]; plugins?: Plugin[] } | null) {
            const list = data && data.pos && data.pos.length ? data.pos : (data && data.plugins) || [];
            list.forEach(function (p: Plugin) {
              $('<option></option>')
                .val(p.id)
                .text(p.name ? p.name + ' (' + p.id + ')' : p.id)
                .appendTo('#platform-push-pos-list');
            });
            setTip(node._('platform-push.tip.instances', { count: list.length }));
          })
          .fail(function (xhr) {
            const reason = (xhr.responseJSON && xhr.responseJSON.message) || xhr.statusText || '';
            setTip(node._('platform-push.tip.no-list', { reason: reason }));
          });
      }
      $('#node-input-server').on('change', loadInstances);
      $('#platform-push-refresh').on('click', function (e) {
        e.preventDefault();
        loadInstances();
      });
    },
  });
})();
