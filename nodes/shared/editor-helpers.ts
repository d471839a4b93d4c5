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
}

/** The parts of the editor's RED the helpers use. */
export interface HelpersRED {
  validators: { typedInput(options: { type?: string; typeField?: string }): (this: unknown, v: unknown, opt: unknown) => unknown };
  nodes: { node(id: string): { valid?: boolean } | null | undefined };
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
  };
}
