/**
 * What the package's editor dialogs share, served to the editor as
 * `DetectionBridgeEditor` in detection-bridge/editor.js (editor-script.ts):
 * one copy of the validators' wording rules and of the TypedInput habits
 * instead of one per node file.
 *
 * `editorHelpers` runs in the browser, sent as its source text: it may use
 * nothing but its arguments and what browsers have.
 */

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

export function editorHelpers(RED: HelpersRED) {
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
    PROPERTY_TYPES: ['msg', 'flow', 'global', 'env'],
    validators,
    apiPathProblem,
    msgByDefault,
  };
}
