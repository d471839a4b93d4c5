/**
 * detection-presence: the editor dialog (compiled into dist/nodes/detection-presence/detection-presence.html by scripts/build.js).
 */
(function () {
  interface DetectionPresenceNode extends EditorNode {
    keyBy?: string;
    lookalike?: boolean;
    scope?: string;
  }
  const TYPE = 'detection-presence';
  const option = DetectionBridgeEditor.option;
  const ruleOf = DetectionBridgeEditor.ruleOf;
  const validators = DetectionBridgeEditor.validators(TYPE);
  const check = validators.check;
  const redisCheck = validators.config('redis', 'redis-gone');
  /** The default look-alike classes (lib/plates/lookalike.ts, served by detection-bridge/editor.js): the runtime reads a missing value as these. */
  const DEFAULT_CLASSES = DetectionBridgePlates.DEFAULT_LOOKALIKE_CLASSES;

  /** Whether `node`'s edit dialog is open (its fields then hold the values being edited, not yet saved on the node). */
  function inDialog(node: EditorNode): boolean {
    return DetectionBridgeEditor.inDialog(node, '#node-input-scope');
  }
  /** A field as the open dialog shows it, else as saved. */
  function fieldOf(node: EditorNode, name: string, fallback: string): string {
    const value = inDialog(node) ? $('#node-input-' + name).val() : node[name];
    return String(value === undefined || value === null || value === '' ? fallback : value);
  }
  /** Whether look-alike classes apply: plates are a key (not only faces or externalId) and look-alikes are one car. */
  function lookalikeOn(node: EditorNode): boolean {
    const keyBy = inDialog(node) ? $('#node-input-keyBy').val() : node.keyBy;
    if (keyBy === 'face' || keyBy === 'externalId') return false;
    if (inDialog(node)) return $('#node-input-lookalike').is(':checked');
    return node.lookalike !== false && node.lookalike !== 'false';
  }
  /** What is wrong with look-alike classes as typed, as the runtime reads them (lib/plates/lookalike.ts): this node's validator key and its values, or null. */
  function classesProblem(text: string): { key: string; vars: Record<string, string> } | null {
    const parsed = DetectionBridgePlates.parseLookalikeClasses(text);
    if (parsed.ok) return null;
    const vars = (parsed.problem.params || {}) as Record<string, string>;
    return { key: parsed.problem.key === 'plates.class-short' ? 'classes-short' : 'classes-twice', vars };
  }

  DetectionBridgeEditor.define<DetectionPresenceNode>('detection-presence', {
    icon: 'detection-presence.svg',
    defaults: {
      property: {
        value: 'payload',
        validate: function (v, _opt) {
          return validators.property(this, v, fieldOf(this, 'propertyType', 'msg'), 'property');
        },
      },
      propertyType: { value: 'msg' },
      keyBy: option(TYPE, 'keyBy'),
      lookalike: option(TYPE, 'lookalike'),
      lookalikeClasses: {
        value: DEFAULT_CLASSES,
        validate: function (v, _opt) {
          if (!lookalikeOn(this)) return true;
          const problem = classesProblem(String(v === undefined || v === null ? '' : v));
          return problem ? check(this, false, problem.key, problem.vars) : true;
        },
      },
      away: option(TYPE, 'away'),
      awayUnits: option(TYPE, 'awayUnits'),
      exitCameras: { value: '' },
      stillHere: option(TYPE, 'stillHere'),
      stillHereUnits: option(TYPE, 'stillHereUnits'),
      maxKeys: option(TYPE, 'maxKeys'),
      scope: option(TYPE, 'scope'),
      redis: {
        value: '',
        type: 'detection-redis',
        // needed only for a table shared through Redis
        validate: function (v, _opt) {
          if (fieldOf(this, 'scope', 'local') !== 'redis') return true;
          return redisCheck.call(this, v, _opt);
        },
      },
      whenUnreachable: option(TYPE, 'whenUnreachable'),
      sharedName: {
        value: '',
        validate: function (v, _opt) {
          const name = String(v || '').trim();
          return check(this, fieldOf(this, 'scope', 'local') !== 'redis' || (name.length <= 200 && !/[:\s{}]/.test(name)), 'sharedName');
        },
      },
    },
    inputs: 1,
    outputs: 4,
    inputLabels: function () {
      return this._('detection-presence.inputs.events');
    },
    outputLabels: function (index: number) {
      return this._('detection-presence.outputs.' + ['arrived', 'left', 'stillHere', 'list'][index]);
    },
    property: ['msg', 'flow', 'global'],
    oneditprepare: function () {
      $('#node-input-away').spinner({ min: 0.001 });
      $('#node-input-stillHere').spinner({ min: 0 });
      const maxKeys = ruleOf(TYPE, 'maxKeys');
      if (maxKeys.kind === 'number') $('#node-input-maxKeys').spinner({ min: maxKeys.min, max: maxKeys.max });
      function showPlates() {
        // plates are keyed by plate only with these keys (an externalId is the enrolled id, never a plate as read)
        const keyBy = $('#node-input-keyBy').val();
        const plates = keyBy === 'plateOrFace' || keyBy === 'plate';
        $('.detection-presence-plates').toggle(plates);
        $('.detection-presence-classes').toggle(plates && $('#node-input-lookalike').is(':checked'));
      }
      function showScope() {
        const shared = $('#node-input-scope').val() === 'redis';
        $('.detection-presence-shared').toggle(shared);
        $('#detection-presence-tip-local').toggle(!shared);
      }
      $('#node-input-keyBy, #node-input-lookalike').on('change', showPlates);
      $('#node-input-scope').on('change', showScope);
      showPlates();
      showScope();
    },
  });
})();
