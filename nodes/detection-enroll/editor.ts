/**
 * detection-enroll: the editor dialog (compiled into dist/nodes/detection-enroll/detection-enroll.html by scripts/build.js).
 */
(function () {
  interface DetectionEnrollNode extends EditorNode {
    action?: string;
    kind?: string;
  }
  /** An action or a kind as chosen in the node; null: read from each message. */
  interface Chosen {
    action: string | null;
    kind: string | null;
  }
  /** The TypedInputs' own types: an action and a kind fixed in the node (runtime: FIXED_ACTION, FIXED_KIND). */
  const FIXED_ACTION = 'action';
  const FIXED_KIND = 'kind';
  const ACTIONS = DetectionBridgeEditor.choicesOf('detection-enroll', 'action');
  const KINDS = DetectionBridgeEditor.choicesOf('detection-enroll', 'kind');
  const ruleOf = DetectionBridgeEditor.ruleOf;
  const PROPERTY_TYPES = DetectionBridgeEditor.PROPERTY_TYPES;
  const validators = DetectionBridgeEditor.validators('detection-enroll');
  const check = validators.check;
  /** A property's value (`field`: action, kind, …) in the open dialog, else as saved; `saved`: as saved. */
  function current(node: EditorNode, field: string, saved?: boolean): string {
    const input = saved ? $() : $('#node-input-' + field);
    const value = input.length ? input.val() : node[field];
    return value === undefined || value === null ? '' : String(value);
  }
  /** The action and the kind chosen in the node; null: read from each message. */
  function chosen(node: EditorNode, saved?: boolean): Chosen {
    const actionType = current(node, 'actionType', saved) || FIXED_ACTION;
    const kindType = current(node, 'kindType', saved) || FIXED_KIND;
    return {
      action: actionType === FIXED_ACTION ? current(node, 'action', saved) || String(ruleOf('detection-enroll', 'action').default) : null,
      kind: kindType === FIXED_KIND ? current(node, 'kind', saved) || String(ruleOf('detection-enroll', 'kind').default) : null,
    };
  }
  /** Whether a value is read for the action and kind chosen (an action or a kind read from
   *  each message may need any). */
  function needed(node: EditorNode, name: string): boolean {
    const c = chosen(node);
    if (name === 'externalId') return c.action !== 'list';
    const enrolling = c.action === 'enroll' || c.action === null;
    if (name === 'plate') return enrolling && c.kind !== 'face';
    if (name === 'photo' || name === 'firstName' || name === 'middleName' || name === 'lastName') return enrolling && c.kind !== 'lpr';
    return enrolling;
  }
  /** Action or Kind: one of the list, or a valid property (Node-RED's own check, in a sentence of ours). */
  function choiceCheck(field: string, fixed: string, choices: readonly string[]) {
    return function (this: EditorNode, v: unknown, _opt?: unknown): EditorVerdict {
      const type = current(this, field + 'Type') || fixed;
      if (type === fixed) return check(this, choices.indexOf(String(v)) !== -1, field + '-choice');
      return validators.property(this, v, type, field);
    };
  }
  /** A TypedInput's check (Node-RED's own, which says what is wrong) in a sentence of ours, made
   *  only when the value is read; `required`: an empty value is refused with its own message. */
  function typedCheck(name: string, required?: boolean) {
    const base = RED.validators.typedInput({ typeField: name + 'Type' });
    return function (this: EditorNode, v: unknown, _opt?: unknown): EditorVerdict {
      if (!needed(this, name)) return true;
      const field = typeof this._ === 'function' ? this._('detection-enroll.label.' + name) : name;
      const empty = v === undefined || v === null || String(v).trim() === '';
      if (empty) return required ? check(this, false, 'required', { field: field }) : true;
      const result = base.call(this, v, {});
      return result === true ? true : check(this, false, 'property', { field: field, error: String(result || '') });
    };
  }
  /** The events bridge chosen: needed. */
  const bridgeCheck = validators.config('bridge');
  /** Each value: the TypedInput types it offers, its default (the runtime's), and whether it is required. */
  const VALUES: Record<
    string,
    { types: Array<'msg' | 'flow' | 'global' | 'str' | 'num' | 'json' | 'jsonata' | 'env'>; value: string; required?: boolean }
  > = {
    externalId: { types: ['msg', 'flow', 'global', 'str', 'num', 'jsonata', 'env'], value: 'payload.externalId', required: true },
    plate: { types: ['msg', 'flow', 'global', 'str', 'jsonata', 'env'], value: 'payload.plate', required: true },
    photo: { types: ['msg', 'flow', 'global', 'jsonata'], value: 'image', required: true },
    firstName: { types: ['msg', 'flow', 'global', 'str', 'jsonata', 'env'], value: 'payload.firstName' },
    middleName: { types: ['msg', 'flow', 'global', 'str', 'jsonata', 'env'], value: 'payload.middleName' },
    lastName: { types: ['msg', 'flow', 'global', 'str', 'jsonata', 'env'], value: 'payload.lastName' },
    monitorReason: { types: ['msg', 'flow', 'global', 'str', 'jsonata', 'env'], value: 'payload.monitorReason' },
    tags: { types: ['msg', 'flow', 'global', 'str', 'json', 'jsonata'], value: 'payload.tags' },
    additionalFields: { types: ['msg', 'flow', 'global', 'json', 'jsonata'], value: 'payload.additionalFields' },
  };
  // Action and Kind were selects with a "set by msg" option before release: no saved flow
  // has that shape, so they need no migration step.
  const defaults: Record<string, EditorPropertyDef> = {
    bridge: { value: '', type: 'events-bridge', validate: bridgeCheck },
    action: { value: ruleOf('detection-enroll', 'action').default, validate: choiceCheck('action', FIXED_ACTION, ACTIONS) },
    actionType: { value: FIXED_ACTION },
    kind: { value: ruleOf('detection-enroll', 'kind').default, validate: choiceCheck('kind', FIXED_KIND, KINDS) },
    kindType: { value: FIXED_KIND },
  };
  Object.keys(VALUES).forEach(function (name) {
    defaults[name] = { value: VALUES[name].value, validate: typedCheck(name, VALUES[name].required) };
    defaults[name + 'Type'] = { value: 'msg' };
  });

  DetectionBridgeEditor.define<DetectionEnrollNode>('detection-enroll', {
    icon: 'detection-enroll.svg',
    defaults: defaults,
    inputs: 1,
    outputs: 1,
    label: function () {
      const c = chosen(this, true);
      if (c.action === null || c.kind === null || ACTIONS.indexOf(c.action) === -1 || KINDS.indexOf(c.kind) === -1)
        return this._('detection-enroll.paletteLabel');
      return this._('detection-enroll.name.' + c.action + '-' + c.kind);
    },
    inputLabels: function () {
      return this._('detection-enroll.inputs.request');
    },
    outputLabels: function () {
      return this._('detection-enroll.outputs.answer');
    },
    oneditprepare: function () {
      const node = this;
      const action = $('#node-input-action');
      const kind = $('#node-input-kind');
      /** A TypedInput of a fixed list (`field`: action or kind) or a property; msg.<field>
       *  when msg is chosen and no property is named yet. */
      function choiceInput(input: JQuery, field: string, fixed: string, choices: readonly string[]) {
        input.typedInput({
          default: fixed,
          types: [
            {
              value: fixed,
              label: node._('detection-enroll.' + field + '.fixed'),
              options: choices.map(function (c) {
                return { value: c, label: node._('detection-enroll.' + field + '.' + c) };
              }),
            },
            ...PROPERTY_TYPES,
          ],
          typeField: '#node-input-' + field + 'Type',
        });
        const msgDefault = DetectionBridgeEditor.msgByDefault(input, field);
        input.on('change', function () {
          msgDefault();
          refresh();
        });
      }
      Object.keys(VALUES).forEach(function (name) {
        $('#node-input-' + name).typedInput({ default: 'msg', types: VALUES[name].types, typeField: '#node-input-' + name + 'Type' });
      });
      function refresh() {
        const c = chosen(node);
        Object.keys(VALUES).forEach(function (name) {
          $('.detection-enroll-row-' + name).toggle(needed(node, name));
        });
        const tip =
          c.action !== null
            ? node._('detection-enroll.tip.' + c.action)
            : node._('detection-enroll.tip.typed', { property: action.typedInput('type') + '.' + action.typedInput('value') });
        $('#detection-enroll-action-tip').text(tip);
        // the TypedInputs keep their width when shown again
        Object.keys(VALUES).forEach(function (name) {
          $('#node-input-' + name).typedInput('width', '70%');
        });
      }
      choiceInput(action, 'action', FIXED_ACTION, ACTIONS);
      choiceInput(kind, 'kind', FIXED_KIND, KINDS);
      refresh();
    },
  });
})();
