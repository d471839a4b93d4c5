/**
 * detection-sample: the editor dialog (compiled into dist/nodes/detection-sample/detection-sample.html by scripts/build.js).
 */
(function () {
  interface DetectionSampleNode extends EditorNode {
    kind?: string;
    kindType?: string;
  }
  /** The Kind TypedInput's own type: a kind fixed in the node (runtime: FIXED_KIND). */
  const FIXED = 'kind';

  const validators = DetectionBridgeEditor.validators('detection-sample');
  const check = validators.check;
  const chosenBridgeCheck = validators.config('bridge');
  const KINDS = DetectionBridgeEditor.choicesOf('detection-sample', 'kind');
  /** A field's value in the open dialog, else as saved. */
  function current(node: EditorNode, name: string): string {
    const input = $('#node-input-' + name);
    const value = input.length ? input.val() : node[name];
    return value === undefined || value === null ? '' : String(value);
  }
  /** The events bridge chosen (in the open dialog, else as saved), or ''. */
  function chosenBridge(node: EditorNode): string {
    const id = current(node, 'bridge');
    return id && id !== '_ADD_' ? id : '';
  }
  /** Whether the node fetches from its own saved Bridge URL (saved before the
   *  events bridge existed; used while no bridge is chosen, as the runtime does). */
  function ownUrlInUse(node: EditorNode): boolean {
    return current(node, 'source') === 'bridge' && !chosenBridge(node) && String(current(node, 'baseUrl') || '').trim() !== '';
  }
  /** The events bridge: needed to fetch, unless the node still has its own saved URL. */
  function bridgeCheck(this: EditorNode, v: unknown, opt?: unknown): EditorVerdict {
    if (current(this, 'source') !== 'bridge') return true;
    if (!v || v === '_ADD_') return check(this, ownUrlInUse(this), 'bridge');
    return chosenBridgeCheck.call(this, v, opt);
  }
  /** The kind's type in the open dialog, else as saved. */
  function kindType(node: EditorNode): string {
    return String(($('#node-input-kindType').length ? $('#node-input-kindType').val() : node.kindType) || FIXED);
  }
  /** The kind: one of the list, or a valid property (Node-RED's own check, in a sentence of ours). */
  function kindCheck(this: EditorNode, v: unknown, _opt?: unknown): EditorVerdict {
    const type = kindType(this);
    if (type === FIXED) return check(this, KINDS.indexOf(String(v)) !== -1, 'kind-choice');
    return validators.property(this, v, type, 'kind');
  }
  /** The sample address the node will GET, as lib/bridge/client.ts joins it. */
  function sampleAddress(base: unknown, kind: string): string | null {
    const m = /^(https?:\/\/)(?:[^\s/?#@]*@)?([^\s/?#]+)(\/[^\s?#]*)?$/i.exec(String(base || '').trim());
    if (!m) return null;
    const prefix = (m[3] || '')
      .replace(/\/+$/, '')
      .replace(/\/api\/v1(?:\/webhook-models(?:\/(?:face|lpr))?)?\/*$/i, '')
      .replace(/\/+$/, '');
    return m[1] + m[2] + prefix + '/api/v1/webhook-models/' + kind;
  }

  DetectionBridgeEditor.define<DetectionSampleNode>('detection-sample', {
    icon: 'detection-sample.svg',
    appliesTo: {
      // only the node's own saved URL uses it (a chosen bridge has its own)
      timeout: ownUrlInUse,
    },
    defaults: {
      kind: { value: DetectionBridgeEditor.ruleOf('detection-sample', 'kind').default, validate: kindCheck },
      kindType: { value: FIXED },
      bridge: { value: '', type: 'events-bridge', validate: bridgeCheck },
      // Saved before the events bridge existed: the node's own bridge, used while no bridge is chosen.
      // Shown read-only; cleared when a bridge is chosen.
      baseUrl: {
        value: '',
        validate: function (v, _opt) {
          if (!ownUrlInUse(this)) return true;
          // as the runtime's bridge client parses it (lib/http/base-url.ts); a user name in it is sent as Basic credentials
          const problem = DetectionBridgeUrls.baseUrlProblem(v);
          if (problem === 'empty' || problem === 'not-absolute' || problem === 'protocol') return check(this, false, 'baseUrl-scheme');
          return check(this, !problem || problem === 'user-info', 'baseUrl');
        },
      },
    },
    inputs: 1,
    outputs: 1,
    label: function () {
      return (this.kindType || FIXED) === FIXED
        ? this._('detection-sample.label.sample', { kind: this.kind || 'face' })
        : this._('detection-sample.label.sampleMsg');
    },
    outputLabels: function () {
      return this._('detection-sample.outputs.sample');
    },
    oneditprepare: function () {
      const node = this;
      // a node saved before the Images option sends pictures (the runtime's default): show that
      if (!$('#node-input-images').val()) $('#node-input-images').val('pictures');
      const kind = $('#node-input-kind');
      kind.typedInput({
        default: FIXED,
        types: [
          {
            value: FIXED,
            label: node._('detection-sample.kind.fixed'),
            options: KINDS.map(function (k) {
              return { value: k, label: node._('detection-sample.kind.' + k) };
            }),
          },
          'msg',
          'flow',
          'global',
          'env',
        ],
        typeField: '#node-input-kindType',
      });
      const kindDefault = DetectionBridgeEditor.msgByDefault(kind, 'kind');
      kind.on('change', function () {
        kindDefault();
        refresh();
      });
      function refresh() {
        const bridge = $('#node-input-source').val() === 'bridge';
        $('.detection-sample-bridge-row').toggle(bridge);
        $('.detection-sample-builtin-row').toggle(!bridge);
        const own = ownUrlInUse(node);
        $('.detection-sample-own-row').toggle(own);
        $('#detection-sample-own-insecure').toggle(own && $('#node-input-insecure').is(':checked'));
        if (!bridge) return;
        const config = chosenBridge(node) ? RED.nodes.node(chosenBridge(node)) : null;
        const base = config ? config.url : own ? $('#node-input-baseUrl').val() : '';
        const fixed = kind.typedInput('type') === FIXED;
        const address = sampleAddress(base, fixed ? kind.typedInput('value') : '{face|lpr}');
        $('#detection-sample-url-tip').text(
          address ? node._('detection-sample.tip.bridge') + ' ' : config ? '' : node._('detection-sample.tip.bridge-none'),
        );
        $('#detection-sample-url').text(address || '');
      }
      $('#node-input-source, #node-input-bridge').on('change', refresh);
      refresh();
    },
    oneditsave: function () {
      // A chosen bridge replaces the node's own saved URL (and its TLS option): nothing is left that is not used.
      if ($('#node-input-source').val() === 'bridge' && chosenBridge(this)) {
        $('#node-input-baseUrl').val('');
        $('#node-input-insecure').prop('checked', false);
      }
    },
  });
})();
