/**
 * What the package's editor dialogs share, served to the editor as
 * `DetectionBridgeEditor` in detection-bridge/editor.js (editor-script.ts):
 * one copy of the validators' wording rules and of the TypedInput habits
 * instead of one per node file.
 *
 * `editorHelpers` runs in the browser, sent as its source text: it may use
 * nothing but its arguments and what browsers have.
 */
import type { NodeOptionsTable } from '../../lib/config/node-options';
import type { OptionRule, RuleResult } from '../../lib/core/option-rules';

/** The option rules as the editor script hands them over (lib/config/node-options.ts, lib/core/option-rules.ts). */
export interface EditorOptionRules {
  NODE_OPTIONS: NodeOptionsTable;
  checkOption(rule: OptionRule, value: unknown): RuleResult<unknown>;
}

/** The lib files the helpers run (served by the editor script; browser-safe). */
export interface EditorLib {
  crops: Pick<typeof import('../../lib/core/crop-sizes'), 'CROP_SIZE_NAMES' | 'parseCropList'>;
  tagPrefix: Pick<typeof import('../../lib/events/tag-prefix'), 'normaliseTagPrefix'>;
  /** lib/config/migrate.ts: a type's current configuration version. */
  config: { currentVersion(type: string): number };
}

/** The parts of the editor's RED the helpers use. */
export interface HelpersRED {
  validators: { typedInput(options: { type?: string; typeField?: string }): (this: unknown, v: unknown, opt: unknown) => unknown };
  nodes: { node(id: string): { valid?: boolean } | null | undefined; registerType?(type: string, definition: object): void };
}

/** jQuery, as far as define's dialog steps use it (the editor's global `$`). */
interface JQueryLike {
  (selector: string): {
    typedInput(options: object): unknown;
    on(events: string, handler: () => void): unknown;
    is(selector: string): boolean;
    prop(name: string): unknown;
    val(): unknown;
    val(value: string): unknown;
  };
}
/** A node as the dialog's own functions see it (the editor's node: its properties, `_`). */
type DialogNode = EditorNode & { name?: unknown; [property: string]: unknown };

/**
 * What a dialog states of itself; define (below) fills what every dialog
 * shares. Any other member (credentials, inputs, outputs, outputLabels,
 * oneditsave, button …) goes to Node-RED as it is.
 */
export interface DialogSpec {
  /** `config` for a configuration node (no color, ports or label style); else the package's palette category. */
  category?: 'config';
  /** Palette color (default the package's blue). */
  color?: string;
  /** The icon (stated by each dialog: scripts/build.js ships the icon a node file names). */
  icon?: string;
  /** The dialog's own properties, and table options it checks its own way; every other option of lib's table is added. */
  defaults?: Record<string, unknown>;
  /** For options of the table that matter only as the node is set: whether one applies (else any value passes). */
  appliesTo?: Record<string, (node: never) => boolean>;
  /** The label of a node without a name (empty or undefined: the palette label). */
  label?: (this: never) => string | undefined;
  /** The types of the event property's TypedInput (#node-input-property, its type in propertyType). */
  property?: string[];
  /** The output count as a field of the dialog sets it (`count` of a checkbox's state or a field's value). */
  outputsBy?: { field: string; count: (value: never) => number };
  oneditprepare?: (this: never) => void;
  [member: string]: unknown;
}
/** A node as validators see it: `_` translates a key of the node's catalog. */
interface EditorNode {
  _?: (key: string, vars?: Record<string, unknown>) => string;
}
/** A jQuery TypedInput, as far as the helpers use it. */
interface TypedInputLike {
  typedInput(what: 'type' | 'value'): string;
  typedInput(what: 'value', value: string): void;
}
/** A validator's answer: true, or what is wrong in the user's language (false when it cannot say). */
type Verdict = true | string | false;

export function editorHelpers(RED: HelpersRED, rules: EditorOptionRules, lib: EditorLib) {
  const empty = (v: unknown): boolean => v === undefined || v === null || String(v).trim() === '';

  /**
   * Validators that word their answer from `<type>.validators.<key>` in the
   * node's catalog. Node-RED shows a string as the reason only from a
   * validator declared with two arguments, so each returned one takes `(v, opt)`.
   */
  function validators(type: string) {
    function check(node: EditorNode | undefined, ok: boolean, key: string, vars?: Record<string, unknown>): Verdict {
      if (ok) return true;
      return node && typeof node._ === 'function' ? node._(`${type}.validators.${key}`, vars) : false;
    }
    /** A property or expression of `propertyType` read as Node-RED checks it; empty: `<key>-empty`. */
    function property(node: EditorNode | undefined, v: unknown, propertyType: string, key: string): Verdict {
      if (empty(v)) return check(node, false, `${key}-empty`);
      const result = RED.validators.typedInput({ type: propertyType }).call(node, v, {});
      return result === true ? true : check(node, false, key, { error: String(result || '') });
    }
    /** A TypedInput whose type is in `typeField`, checked by Node-RED; `required`: empty is `<key>-empty`. */
    function typed(typeField: string, key: string, required?: boolean) {
      const base = RED.validators.typedInput({ typeField });
      return function (this: EditorNode, v: unknown, _opt: unknown): Verdict {
        if (required && empty(v)) return check(this, false, `${key}-empty`);
        const result = base.call(this, v, {});
        return result === true ? true : check(this, false, key, { error: String(result || '') });
      };
    }
    /**
     * A configuration node chosen and valid: `<key>` when none is, `<key>-invalid`
     * when it has errors, `goneKey` (or `<key>`) when the one chosen is no more.
     */
    function config(key: string, goneKey = key) {
      return function (this: EditorNode, v: unknown, _opt: unknown): Verdict {
        if (!v || v === '_ADD_') return check(this, false, key);
        const chosen = RED.nodes.node(String(v));
        if (!chosen) return check(this, false, goneKey);
        return check(this, chosen.valid !== false, `${key}-invalid`);
      };
    }
    return { check, property, typed, config };
  }

  /** The rule of option `name` of `type` in lib's table (an error names what is missing: a typo must not pass unseen). */
  function ruleOf(type: string, name: string): OptionRule {
    const table = (rules.NODE_OPTIONS as unknown as Record<string, Record<string, OptionRule>>)[type];
    const rule = table && table[name];
    if (!rule) throw new Error(`detection-bridge: no option rule ${type}.${name}`);
    return rule;
  }

  /** The values option `name` of `type` allows (a choice's list). */
  function choicesOf(type: string, name: string): readonly string[] {
    const rule = ruleOf(type, name);
    if (rule.kind !== 'choice') throw new Error(`detection-bridge: ${type}.${name} is no choice`);
    return rule.choices;
  }

  /**
   * A property of the dialog's `defaults` from lib's table: the default a new
   * node gets, and a validator with the runtime's rule, worded from
   * `<type>.validators.<message or name>` (a number's). `appliesTo(node)`: whether the
   * option matters as the node is set (else any value passes). A flag has no
   * validator: its checkbox holds nothing else, and the runtime reads
   * anything else as its default.
   */
  function option<N extends EditorNode>(type: string, name: string, appliesTo?: (node: N) => boolean) {
    const rule = ruleOf(type, name);
    const { check } = validators(type);
    if (rule.kind === 'flag') return { value: rule.default as unknown };
    return {
      value: rule.default as unknown,
      validate: function (this: N, v: unknown, _opt?: unknown): Verdict {
        if (appliesTo && !appliesTo(this)) return true;
        const ok = rules.checkOption(rule, v).ok;
        // a select holds only its choices: a wrong one comes from an import, marked without a message of its own
        if (rule.kind === 'choice' && !rule.message) return ok;
        return check(this, ok, rule.message || name);
      },
    };
  }

  /** The crop sizes a plate's picture is chosen by, in the default order (lib/core/crop-sizes.ts). */
  const CROPS: string[] = lib.crops.CROP_SIZE_NAMES.slice();
  /** A crop list the runtime reads (lib/core/crop-sizes.ts parseCropList). */
  function validCrops(v: unknown): boolean {
    return lib.crops.parseCropList(v) !== null;
  }

  /** A typed tag prefix as the runtime uses it (lib/events/tag-prefix.ts): '' for none, null when it is none. */
  function tagPrefixOf(v: unknown): string | null {
    const prefix = lib.tagPrefix.normaliseTagPrefix(v === undefined || v === null ? '' : String(v));
    return prefix === undefined ? null : prefix;
  }

  /** What is wrong with a platform API path (`/api/v2/…`), or null: the key of its reason. */
  function apiPathProblem(v: unknown): string | null {
    const p = String(v || '').trim();
    if (p === '') return 'path-empty';
    if (/\s/.test(p)) return 'path-spaces';
    return /^\/?[^\s?#]*$/.test(p) ? null : 'path';
  }

  /**
   * Registers a dialog: `spec` holds only what is its own (see DialogSpec);
   * this fills the rest as every dialog of the package has it: the category
   * and color, `name`, every option of lib's table (option above) and the
   * configuration version in the defaults, no ports unless stated, a label (the name, else
   * the spec's, else the palette label) in italics when named, the palette
   * label from the catalog, and before the spec's own oneditprepare: the
   * event property's TypedInput and the output count kept in step.
   */
  function define(type: string, spec: DialogSpec): void {
    const { category, color, defaults, appliesTo, label, property, outputsBy, oneditprepare, ...rest } = spec;
    const config = category === 'config';
    const table = (rules.NODE_OPTIONS as unknown as Record<string, Record<string, OptionRule>>)[type] || {};
    const own = defaults || {};
    const applies = (appliesTo || {}) as Record<string, (node: EditorNode) => boolean>;
    const all: Record<string, unknown> = { name: { value: '' } };
    for (const name of Object.keys(table)) if (!(name in own)) all[name] = option(type, name, applies[name]);
    for (const name of Object.keys(own)) all[name] = own[name];
    all.configVersion = { value: lib.config.currentVersion(type) };
    const ownLabel = label as ((this: DialogNode) => string | undefined) | undefined;
    function paletteLabel(this: DialogNode): string {
      return typeof this._ === 'function' ? this._(`${type}.paletteLabel`) : type;
    }
    const definition: Record<string, unknown> = {
      category: config ? 'config' : 'detection bridge',
      defaults: all,
      label: function (this: DialogNode): string {
        return (this.name ? String(this.name) : '') || (ownLabel && ownLabel.call(this)) || paletteLabel.call(this);
      },
      paletteLabel,
    };
    if (!config) {
      definition.color = color || '#87C4E6';
      definition.inputs = 0;
      definition.outputs = 0;
      definition.labelStyle = function (this: DialogNode): string {
        return this.name ? 'node_label_italic' : '';
      };
    }
    Object.assign(definition, rest);
    const prepare = oneditprepare as ((this: DialogNode) => void) | undefined;
    const outputs = outputsBy as { field: string; count: (value: string | boolean) => number } | undefined;
    definition.oneditprepare = function (this: DialogNode): void {
      const $ = (globalThis as unknown as { $: JQueryLike }).$;
      if (property) $('#node-input-property').typedInput({ default: 'msg', types: property, typeField: '#node-input-propertyType' });
      if (outputs) {
        const selector = '#node-input-' + outputs.field;
        const sync = (): void => {
          const field = $(selector);
          $('#node-input-outputs').val(String(outputs.count(field.is(':checkbox') ? field.prop('checked') === true : String(field.val()))));
        };
        $(selector).on('change', sync);
        sync();
      }
      if (prepare) prepare.call(this);
    };
    if (!RED.nodes.registerType) throw new Error('detection-bridge: define needs the editor');
    RED.nodes.registerType(type, definition);
  }

  /** Whether `node`'s edit dialog is open: the dialog's `probe` field is shown and the node is being edited. */
  function inDialog(node: unknown, probe: string): boolean {
    const $ = (globalThis as unknown as { $: (s: string) => { length?: number } }).$;
    if (!$(probe).length) return false;
    const editor = (RED as unknown as { editor?: { getEditStack?: () => unknown[] } }).editor;
    const stack = editor && typeof editor.getEditStack === 'function' ? editor.getEditStack() : null;
    return !stack || stack.indexOf(node) !== -1;
  }

  /**
   * Whether credential `name` is set: in the open dialog (`probe`, see inDialog)
   * its field (a stored password shows as __PWRD__), else what the editor knows.
   * After a deploy or a reload the editor knows nothing of a deployed node's
   * credentials (they stay in the runtime): taken as set; a new, imported or
   * pasted node has none until they are entered.
   */
  function hasCredential(node: { credentials?: Record<string, unknown>; changed?: boolean }, name: string, probe: string): boolean {
    const $ = (globalThis as unknown as { $: (s: string) => { length?: number; val(): unknown } }).$;
    if (inDialog(node, probe) && $('#node-input-' + name).length) return $('#node-input-' + name).val() !== '';
    const c = node.credentials;
    if (!c) return !node.changed;
    return !!(c[name] || c['has_' + name]);
  }

  /**
   * For a TypedInput that replaced a "from msg" choice: when the user switches
   * it to msg with no property named yet, it names `msg.<name>`, as before.
   * Returns what to call on each change of the input.
   */
  function msgByDefault(input: TypedInputLike, name: string): () => void {
    let shownType = input.typedInput('type');
    return () => {
      const type = input.typedInput('type');
      if (type !== shownType && type === 'msg' && !input.typedInput('value')) input.typedInput('value', name);
      shownType = type;
    };
  }

  return {
    /** A value read from a message or context: the TypedInput types for it. */
    PROPERTY_TYPES: ['msg', 'flow', 'global', 'env'] as Array<'msg' | 'flow' | 'global' | 'env'>,
    validators,
    option,
    ruleOf,
    choicesOf,
    apiPathProblem,
    msgByDefault,
    CROPS,
    validCrops,
    tagPrefixOf,
    define,
    inDialog,
    hasCredential,
  };
}
