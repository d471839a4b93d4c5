/**
 * What the package's editor scripts (nodes/<type>/editor.ts, compiled by
 * tsconfig.editor.json) find in the browser: Node-RED's editor (`RED`, typed
 * from @types/node-red__editor-client where those typings match Node-RED 4),
 * jQuery, and what detection-bridge/editor.js defines before any of them runs
 * (nodes/shared/editor-script.ts).
 *
 * The typings of 2024 lag Node-RED 4 in what the dialogs use: a validator may
 * answer with the reason (a string) and takes `(value, options)`; a node has
 * the properties of its `defaults`; `RED.nodes.node` and `eachNode` give
 * nodes. Those parts are stated here instead.
 */
import type * as EditorClient from 'node-red__editor-client';

declare global {
  /** jQuery UI's spinner, which Node-RED's editor brings. */
  interface JQuery<TElement = HTMLElement> {
    spinner(options?: { min?: number; max?: number; step?: number; change?: (this: TElement) => void }): JQuery<TElement>;
  }

  /** A validator's answer: true, or what is wrong (in the user's language; false when it cannot say). */
  type EditorVerdict = boolean | string;

  /** A node as the editor holds it: the properties of its type's `defaults`, and the editor's own. */
  interface EditorNode {
    readonly id: string;
    readonly type: string;
    /** The flow (tab or subflow) it is on. */
    readonly z: string;
    /** Disabled. */
    readonly d?: boolean;
    /** Changed since the last deploy. */
    readonly changed?: boolean;
    name?: string;
    valid?: boolean;
    credentials?: Record<string, unknown>;
    /** Translates a key of the node's catalog. */
    _(key: string, vars?: Record<string, unknown>): string;
    [property: string]: unknown;
  }

  /** A workspace tab or subflow, as the dialogs read it. */
  interface EditorFlow {
    id: string;
    label?: string;
    name?: string;
    disabled?: boolean;
  }

  /** One property of a type's `defaults`. A validator gets the value as the dialog or the saved node holds it (any type). */
  interface EditorPropertyDef<N extends EditorNode = EditorNode> {
    value: unknown;
    required?: boolean;
    /** The type of configuration node it names. */
    type?: string;
    validate?: (this: N, value: any, options?: any) => EditorVerdict; // eslint-disable-line @typescript-eslint/no-explicit-any
  }

  interface EditorCredentialDef<N extends EditorNode = EditorNode> {
    type: 'text' | 'password';
    validate?: (this: N, value: any, options?: any) => EditorVerdict; // eslint-disable-line @typescript-eslint/no-explicit-any
  }

  /** What RED.nodes.registerType takes (Node-RED's node definition); `N`: the type's node with its properties. */
  interface EditorNodeDef<N extends EditorNode = EditorNode> {
    category: string;
    color?: string;
    defaults: Record<string, EditorPropertyDef<N>>;
    credentials?: Record<string, EditorCredentialDef<N>>;
    inputs?: number;
    outputs?: number;
    icon?: string;
    align?: 'left' | 'right';
    label?: string | ((this: N) => string);
    labelStyle?: string | ((this: N) => string);
    paletteLabel?: string | ((this: N) => string);
    inputLabels?: string | ((this: N) => string);
    outputLabels?: string | string[] | ((this: N, index: number) => string | undefined);
    button?: { onclick: (this: N) => void; enabled?: (this: N) => boolean; visible?: (this: N) => boolean };
    oneditprepare?: (this: N) => void;
    oneditsave?: (this: N) => void | boolean;
    oneditcancel?: (this: N) => void;
    oneditdelete?: (this: N) => void;
    oneditresize?: (this: N, size: { width: number; height: number }) => void;
    onadd?: (this: N) => void;
    onpaletteadd?: () => void;
  }

  type EditorRED = Omit<EditorClient.RED, 'nodes' | 'validators' | 'editor'> & {
    nodes: Omit<EditorClient.Nodes, 'registerType' | 'node' | 'eachNode' | 'eachConfig' | 'workspace' | 'subflow' | 'createCompleteNodeSet'> & {
      registerType<N extends EditorNode = EditorNode>(type: string, definition: EditorNodeDef<N>): void;
      node(id: string): EditorNode | null;
      eachNode(visit: (node: EditorNode) => boolean | void): void;
      eachConfig(visit: (node: EditorNode) => boolean | void): void;
      workspace(id: string): EditorFlow | undefined;
      subflow(id: string): EditorFlow | undefined;
      /** The flows as they would be deployed (Node-RED 4 takes options; credentials: false leaves them out). */
      createCompleteNodeSet(options?: { credentials?: boolean } | boolean): import('../../lib/delivery/downstream').FlowNodeConfig[];
    };
    validators: {
      number(blankAllowed?: boolean): (this: EditorNode, value: unknown, options?: unknown) => EditorVerdict;
      regex(re: RegExp): (this: EditorNode, value: unknown, options?: unknown) => EditorVerdict;
      typedInput(
        options: string | { type?: string; typeField?: string },
        isConfig?: boolean,
      ): (this: EditorNode | undefined, value: unknown, options?: unknown) => EditorVerdict;
    };
    editor: EditorClient.Editor & { getEditStack?: () => EditorNode[] };
    utils: Omit<EditorClient.Utils, 'getNodeLabel'> & { getNodeLabel(node: EditorNode, defaultLabel?: string): string };
  };

  const RED: EditorRED;
  /** lib/config/migrate.ts: the configuration versions. */
  const DetectionBridgeConfig: typeof import('../../lib/config/migrate');
  /**
   * What a dialog states of itself for DetectionBridgeEditor.define (nodes/shared/editor-helpers.ts
   * DialogSpec): Node-RED's definition without what define fills, with `this` the type's node.
   */
  type EditorDialogSpec<N extends EditorNode = EditorNode> = Omit<EditorNodeDef<N>, 'category' | 'defaults' | 'label' | 'paletteLabel'> & {
    category?: 'config';
    defaults?: Record<string, EditorPropertyDef<N>>;
    appliesTo?: Record<string, (node: N) => boolean>;
    label?: (this: N) => string | undefined;
    property?: string[];
    outputsBy?: { field: string; count: (value: any) => number }; // eslint-disable-line @typescript-eslint/no-explicit-any
  };

  /** nodes/shared/editor-helpers.ts: what the dialogs share; `define` typed for the dialogs' nodes. */
  const DetectionBridgeEditor: Omit<ReturnType<typeof import('./editor-helpers').editorHelpers>, 'define'> & {
    define<N extends EditorNode = EditorNode>(type: string, spec: EditorDialogSpec<N>): void;
  };
  /** lib/config/node-options.ts: each node type's option rules, and their check. */
  const DetectionBridgeOptions: import('./editor-helpers').EditorOptionRules;
  /** lib/delivery/downstream.ts: whether a detection-done is wired downstream of a receiver. */
  const DetectionBridgeDownstream: typeof import('../../lib/delivery/downstream');
  /** lib/receiver/auth-config.ts: the authentication modes and the credentials each needs. */
  const DetectionBridgeAuth: {
    readonly AUTH_CREDENTIALS: Readonly<Record<string, readonly string[]>>;
    readonly HEADER_NAME: RegExp;
  };
  /** lib/http/route-path.ts: a typed path's route key and check, as the runtime mounts it. */
  const DetectionBridgeRoutes: typeof import('../../lib/http/route-path');
  /** lib/bridge/enroll-api.ts: the enrollment API's defaults and its check (its problems are lib Messages with the option they name). */
  const DetectionBridgeEnrollment: {
    readonly DEFAULT_ENROLLMENT_PATHS: Readonly<Record<'lpr' | 'face', { readonly monitor: string; readonly list: string }>>;
    readonly DEFAULT_PHOTO_FIELD: string;
    readonly DEFAULT_PAGE_SIZE: number;
    resolveEnrollmentApi(options: {
      paths?: Partial<Record<'lpr' | 'face', { monitor?: string; list?: string }>>;
      pageQuery?: string;
      pageSize?: string;
      photoField?: string;
    }): { ok: true } | { ok: false; problems: Array<{ option: string; key: string }> };
  };
  /** lib/alert/template.ts: the fields an alert's templates may name. */
  const DetectionBridgeAlert: Pick<typeof import('../../lib/alert/template'), 'ALERT_FIELDS' | 'unknownFields'>;
  /** lib/http/base-url.ts: a configuration node's base URL check. */
  const DetectionBridgeUrls: Pick<typeof import('../../lib/http/base-url'), 'baseUrlProblem'>;
  /** lib/plates/lookalike.ts: look-alike classes, their default and their check (what the dialogs use of it; its types
   *  are not imported: they would bring lib's message catalog into the editor's build). */
  const DetectionBridgePlates: {
    readonly DEFAULT_LOOKALIKE_CLASSES: string;
    parseLookalikeClasses(
      text: unknown,
    ): { ok: true; lookalikes: { readonly text: string } } | { ok: false; problem: { key: string; params?: Record<string, unknown> } };
  };
}
