/**
 * detection-dedupe: the editor dialog (compiled into dist/nodes/detection-dedupe/detection-dedupe.html by scripts/build.js).
 */
(function () {
  interface DetectionDedupeNode extends EditorNode {
    mode?: string;
    ttl?: number | string;
    ttlUnits?: string;
    store?: string;
    duplicatesOutput?: boolean;
    cap?: boolean;
    /** Set by the dialog: 1, plus the duplicates output, plus the digest output of the cap. */
    outputs?: number;
  }
  type Mode = 'id' | 'cooldown';
  const ruleOf = DetectionBridgeEditor.ruleOf;
  /** The Key TypedInput's own type: a key picked by name, read from the event (runtime: lib/dedupe/key.ts). */
  const BY_NAME = 'event';
  const CHOICES = ['plateAtCamera', 'plate', 'plateLookalikeAtCamera', 'plateLookalike', 'person', 'camera', 'messageId'];
  const DEFAULT_KEYS: Record<Mode, { key: string; keyType: string }> = {
    id: { key: 'messageId', keyType: BY_NAME },
    cooldown: { key: 'plateAtCamera', keyType: BY_NAME },
  };
  /** A new node's window (lib's defaults, for the default mode, id), and a cooldown's once the mode is switched. */
  const DEFAULT_TTL: Record<Mode, { ttl: unknown; ttlUnits: unknown }> = {
    id: { ttl: ruleOf('detection-dedupe', 'ttl').default, ttlUnits: ruleOf('detection-dedupe', 'ttlUnits').default },
    cooldown: { ttl: 60, ttlUnits: 's' },
  };

  const validators = DetectionBridgeEditor.validators('detection-dedupe');
  const check = validators.check;
  const redisCheck = validators.config('redis', 'redis-gone');
  const typedCheck = validators.typed;
  const keyPropertyCheck = typedCheck('keyType', 'key');
  /** The key's type in the open dialog, else as saved. */
  function keyTypeOf(node: EditorNode): string {
    return String(($('#node-input-keyType').length ? $('#node-input-keyType').val() : node.keyType) || 'msg');
  }
  /** The key: one of the choices, or a property or expression Node-RED accepts. */
  function keyCheck(this: EditorNode, v: unknown, opt?: unknown): EditorVerdict {
    if (keyTypeOf(this) === BY_NAME) return check(this, CHOICES.indexOf(String(v)) !== -1, 'key-choice');
    return keyPropertyCheck.call(this, v, opt);
  }
  /** Where a key picked by name reads the event: checked only then. */
  function eventPropertyCheck(this: EditorNode, v: unknown, _opt?: unknown): EditorVerdict {
    if (keyTypeOf(this) !== BY_NAME) return true;
    const type = String(($('#node-input-propertyType').length ? $('#node-input-propertyType').val() : this.propertyType) || 'msg');
    return validators.property(this, v, type, 'property');
  }
  /** Whether `node`'s edit dialog is open (its fields then hold the values being edited, not yet saved on the node). */
  function inDialog(node: EditorNode): boolean {
    return DetectionBridgeEditor.inDialog(node, '#node-input-scope');
  }
  /** A saved flag: true, or "true" in a hand-written flow. */
  function on(v: unknown): boolean {
    return v === true || v === 'true';
  }
  /**
   * The output ports of a node: first sightings, then duplicates (when asked
   * for), then the cap's digest (when capped), as the runtime sends them.
   */
  function portsOf(duplicates: boolean, cap: boolean): string[] {
    return ['first'].concat(duplicates ? ['duplicates'] : [], cap ? ['digest'] : []);
  }
  /**
   * Where each port goes when the outputs change, as Node-RED's editor reads
   * it from #node-input-outputs (the core switch node does the same): old
   * port index → new index, or "-1" when the port goes; a key that is no
   * number is a new port. Without it, the wires would stay on the port index
   * they had, and the duplicates' wire would take the digest.
   */
  function outputMap(before: string[], after: string[]): Record<string, string> {
    const map: Record<string, string> = {};
    before.forEach(function (port, i) {
      map[String(i)] = String(after.indexOf(port));
    });
    after.forEach(function (port) {
      if (before.indexOf(port) < 0) map[port] = port;
    });
    return map;
  }

  /** Where the window is kept, as the open dialog shows it, else as saved. */
  function scopeOf(node: EditorNode): string {
    const scope = inDialog(node) ? $('#node-input-scope').val() : node.scope;
    return String(scope || 'local');
  }

  DetectionBridgeEditor.define<DetectionDedupeNode>('detection-dedupe', {
    icon: 'detection-dedupe.svg',
    defaults: {
      key: { value: 'messageId', validate: keyCheck },
      keyType: { value: BY_NAME },
      property: { value: 'payload', validate: eventPropertyCheck },
      propertyType: { value: 'msg' },
      store: { value: '' },
      redis: {
        value: '',
        type: 'detection-redis',
        // needed only for a window shared through Redis
        validate: function (v, _opt) {
          if (scopeOf(this) !== 'redis') return true;
          return redisCheck.call(this, v, _opt);
        },
      },
      sharedName: {
        value: '',
        validate: function (v, _opt) {
          const name = String(v || '').trim();
          return check(this, scopeOf(this) !== 'redis' || (name.length <= 200 && !/[:\s]/.test(name)), 'sharedName');
        },
      },
      outputs: { value: 1 },
    },
    inputs: 1,
    outputs: 1,
    label: function () {
      const short = this.mode === 'cooldown' ? this._('detection-dedupe.label.cooldownShort') : this._('detection-dedupe.label.dedupeShort');
      // a hand-written node without a window (flagged invalid) shows no number rather than " s"
      if (this.ttl === undefined || this.ttl === '') return short;
      const units = this.ttlUnits === 'm' || this.ttlUnits === 'h' ? this.ttlUnits : 's';
      return short + ' ' + this._('detection-dedupe.unitsShort.' + units, { n: this.ttl });
    },
    inputLabels: function () {
      return this._('detection-dedupe.inputs.events');
    },
    outputLabels: function (index: number) {
      if (index === 0) return this._('detection-dedupe.outputs.first');
      if (index === 1 && this.duplicatesOutput) return this._('detection-dedupe.outputs.duplicates');
      return this._('detection-dedupe.outputs.digest');
    },
    property: ['msg', 'flow', 'global'],
    oneditprepare: function () {
      const node = this;
      $('#node-input-key').typedInput({
        default: BY_NAME,
        types: [
          {
            value: BY_NAME,
            label: node._('detection-dedupe.keyType.event'),
            options: CHOICES.map(function (c) {
              return { value: c, label: node._('detection-dedupe.key.' + c) };
            }),
          },
          'msg',
          'flow',
          'global',
          'env',
          'jsonata',
        ],
        typeField: '#node-input-keyType',
      });
      function showKeyType() {
        $('.detection-dedupe-event').toggle($('#node-input-key').typedInput('type') === BY_NAME);
      }
      $('#node-input-key').on('change', showKeyType);
      showKeyType();
      $('#node-input-ttl').spinner({ min: 0.001 });
      $('#node-input-capPeriod').spinner({ min: 0.001 });
      const capCount = ruleOf('detection-dedupe', 'capCount');
      if (capCount.kind === 'number') $('#node-input-capCount').spinner({ min: capCount.min, max: capCount.max });
      // The cooldown's origin is one choice; it is saved as `refresh` (counted from the last sighting), as always.
      const from = $('#detection-dedupe-cooldownFrom');
      from.val($('#node-input-refresh').is(':checked') ? 'sighting' : 'pass');
      from.on('change', function () {
        $('#node-input-refresh').prop('checked', from.val() === 'sighting');
      });
      function showCap() {
        $('.detection-dedupe-cap').toggle($('#node-input-cap').is(':checked'));
      }
      $('#node-input-cap').on('change', showCap);
      showCap();
      const maxKeys = ruleOf('detection-dedupe', 'maxKeys');
      if (maxKeys.kind === 'number') $('#node-input-maxKeys').spinner({ min: maxKeys.min, max: maxKeys.max });

      // the context stores of the runtime's settings (Node-RED sends them to the editor)
      const context = (RED.settings as unknown as { context?: { stores?: string[]; default?: string } }).context;
      const stores = (context && context.stores) || ['memory'];
      const defaultStore = (context && context.default) || stores[0];
      const select = $('#node-input-store');
      select.empty();
      stores.forEach(function (s) {
        const text = s === defaultStore ? s + ' ' + node._('detection-dedupe.label.defaultStore') : s;
        select.append(
          $('<option></option>')
            .val(s === defaultStore ? '' : s)
            .text(text),
        );
      });
      // not a context store: each key written to a log on disk before its message goes on
      select.append($('<option></option>').val('detection-bridge:key-log').text(node._('detection-dedupe.label.keyLog')));
      select.val(node.store || '');

      function showMode(changed: boolean) {
        const mode: Mode = $('#node-input-mode').val() === 'cooldown' ? 'cooldown' : 'id';
        const other: Mode = mode === 'id' ? 'cooldown' : 'id';
        if (changed) {
          // Swap in this mode's defaults only where the user kept the other mode's.
          const keyInput = $('#node-input-key');
          if (keyInput.typedInput('value') === DEFAULT_KEYS[other].key && keyInput.typedInput('type') === DEFAULT_KEYS[other].keyType) {
            keyInput.typedInput('type', DEFAULT_KEYS[mode].keyType);
            keyInput.typedInput('value', DEFAULT_KEYS[mode].key);
            showKeyType();
          }
          if (Number($('#node-input-ttl').val()) === DEFAULT_TTL[other].ttl && $('#node-input-ttlUnits').val() === DEFAULT_TTL[other].ttlUnits) {
            $('#node-input-ttl').val(String(DEFAULT_TTL[mode].ttl));
            $('#node-input-ttlUnits').val(String(DEFAULT_TTL[mode].ttlUnits));
          }
        }
        $('.detection-dedupe-cooldown').toggle(mode === 'cooldown');
        $('#detection-dedupe-tip-id').toggle(mode === 'id');
        $('#detection-dedupe-tip-cooldown').toggle(mode === 'cooldown');
      }
      $('#node-input-mode').on('change', function () {
        showMode(true);
      });
      showMode(false);
      function showScope() {
        const shared = $('#node-input-scope').val() === 'redis';
        $('.detection-dedupe-shared').toggle(shared);
        $('.detection-dedupe-local').toggle(!shared);
        $('.detection-dedupe-store').toggle(!shared && $('#node-input-persist').is(':checked'));
      }
      $('#node-input-scope, #node-input-persist').on('change', showScope);
      showScope();
    },
    oneditsave: function () {
      // the node as saved (the fields are not copied into it yet), and as the dialog has it now
      const before = portsOf(on(this.duplicatesOutput), on(this.cap));
      const after = portsOf($('#node-input-duplicatesOutput').is(':checked'), $('#node-input-cap').is(':checked'));
      // a saved node whose outputs do not follow its flags (written by hand): only the count is known
      const known = Number(this.outputs === undefined ? 1 : this.outputs) === before.length;
      $('#node-input-outputs').val(known ? JSON.stringify(outputMap(before, after)) : String(after.length));
    },
  });
})();
