/**
 * Whether a `detection-done` node is downstream of a receiver: the default of
 * its "Finished when" option (wait for a done node only when one can ever
 * see its events), the editor's tip, and the warning in its status.
 *
 * It reads a flow configuration as Node-RED stores it (the array of node
 * configurations of flows.json, the editor's export, or the runtime's active
 * configuration) and follows the messages of the receiver's first output:
 * wires; link out → its link in nodes; link call → its link in nodes, and
 * from a link out in "return" mode back to the outputs of the link call that
 * called; a subflow instance → its template's input, and from the template's
 * output ports on to the instance's wires; a `complete` node whose scope
 * covers a node reached (a node that finishes a message is what it reports:
 * "complete → done" is a way to mark events finished). Catch and status
 * nodes are not followed: they report errors and states, not the messages
 * of a flow that works, and a done node only there would hold every event
 * that went well for ever. Disabled nodes and nodes of a disabled flow
 * do not run: nothing is followed through them, and a disabled done node
 * does not count.
 *
 * It runs in the editor too, sent as the compiled file
 * (nodes/shared/editor-script.ts): it imports nothing.
 */

/** A node's configuration, as far as the analysis reads it. */
export interface FlowNodeConfig {
  id: string;
  type: string;
  /** The tab or subflow template it is on. */
  z?: string;
  wires?: string[][];
  /** link out / link call: the link in nodes; link in: the link out nodes. */
  links?: string[];
  /** link out: 'link' (the default) or 'return'. */
  mode?: string;
  /** link call: 'static' (the default) or 'dynamic' (the target comes with the message). */
  linkType?: string;
  /** complete: the nodes it watches (of its own flow); none: it watches nothing. */
  scope?: string[] | null;
  /** A disabled node. */
  d?: boolean;
  /** A disabled flow (tab). */
  disabled?: boolean;
  /** Subflow template: its input port. */
  in?: Array<{ wires?: Array<{ id: string }> }>;
  /** Subflow template: its output ports. */
  out?: Array<{ wires?: Array<{ id: string; port?: number }> }>;
}

/** A receiver as the runtime knows it: inside a subflow instance its id is generated and `alias` is its id in the template. */
export interface ReceiverRef {
  id: string;
  z?: string;
  alias?: string;
}

/** The node type that marks an event finished. */
export const DONE_NODE_TYPE = 'detection-done';

/** The receiver's "Finished when" option: from what is wired (auto), once handed to the flow, or when a detection done marks it. */
export const FINISHED_WHEN = ['auto', 'handed', 'done'] as const;
export type FinishedWhen = (typeof FINISHED_WHEN)[number];

/** How a receiver finishes its events. */
export interface CompletionPlan {
  /** Whether events are held until a detection-done marks them (else finished once emitted). */
  awaitCompletion: boolean;
  /** Whether a detection-done node is downstream of the receiver. */
  doneDownstream: boolean;
  /** Events are held and no done node will ever mark them. */
  noDoneWired: boolean;
}

/** What `finishedWhen` (missing or unknown: auto) means with or without a done node downstream. */
export function completionPlan(finishedWhen: unknown, doneDownstream: boolean): CompletionPlan {
  const choice = FINISHED_WHEN.indexOf(finishedWhen as FinishedWhen) === -1 ? 'auto' : (finishedWhen as FinishedWhen);
  const awaitCompletion = choice === 'done' || (choice === 'auto' && doneDownstream);
  return { awaitCompletion, doneDownstream, noDoneWired: awaitCompletion && !doneDownstream };
}

/** A place in the flows: a node reached, inside which subflow instances, called by which link calls. */
interface Position {
  id: string;
  /** Subflow instance node ids, outermost first; empty: top level, or an instance not known. */
  instances: string[];
  /** Link call node ids waiting for a return, outermost first. */
  calls: string[];
}

const SUBFLOW_INSTANCE = /^subflow:(.+)$/;

/**
 * Whether a detection-done node can receive the messages of `receiver`'s
 * first output. `receiver`: its id in `flows`, or the runtime's view of it
 * (inside a subflow instance: its generated id, the instance as `z` and its
 * template id as `alias`). A receiver not in `flows` has nothing downstream.
 */
export function doneDownstream(flows: readonly FlowNodeConfig[], receiver: string | ReceiverRef): boolean {
  const byId = new Map<string, FlowNodeConfig>();
  for (const n of flows) if (n && typeof n.id === 'string') byId.set(n.id, n);
  const ref: ReceiverRef = typeof receiver === 'string' ? { id: receiver } : receiver;
  const startId = ref.alias && byId.has(ref.alias) ? ref.alias : ref.id;
  const start = byId.get(startId);
  if (!start || !runs(start, byId)) return false;
  // Inside a subflow instance: which one (nested ones have ids made of their parents').
  const instances = ref.alias && start.z && byId.get(start.z)?.type === 'subflow' ? instancePath(ref.z, byId) : [];

  // Nodes by role, for links, link calls and complete nodes.
  const completes: FlowNodeConfig[] = [];
  const linkCalls: FlowNodeConfig[] = [];
  const instancesOf = new Map<string, FlowNodeConfig[]>();
  const linkIns: FlowNodeConfig[] = [];
  for (const n of byId.values()) {
    if (!runs(n, byId)) continue;
    if (n.type === 'complete') completes.push(n);
    else if (n.type === 'link call') linkCalls.push(n);
    else if (n.type === 'link in') linkIns.push(n);
    const template = SUBFLOW_INSTANCE.exec(n.type)?.[1];
    if (template) instancesOf.set(template, [...(instancesOf.get(template) ?? []), n]);
  }

  const seen = new Set<string>();
  const queue: Position[] = [];
  const completeSeen = new Set<string>();

  const visit = (id: string, instances: string[], calls: string[]): void => {
    const key = `${id}|${instances.join('/')}|${calls.join('/')}`;
    if (seen.has(key)) return;
    seen.add(key);
    queue.push({ id, instances, calls });
  };
  /**
   * Where the messages of `node`'s outputs go (`only`: that output alone): its
   * wires, and, inside a subflow template, the template's output ports it is
   * wired to. `at`: where `node` is.
   */
  const follow = (node: FlowNodeConfig, at: Position, only?: number): void => {
    const wires = Array.isArray(node.wires) ? node.wires : [];
    wires.forEach((targets, port) => {
      if (only !== undefined && port !== only) return;
      for (const target of Array.isArray(targets) ? targets : []) visit(target, at.instances, at.calls);
    });
    const template = node.z ? byId.get(node.z) : undefined;
    if (template?.type !== 'subflow') return;
    (template.out ?? []).forEach((out, outPort) => {
      const wired = (out.wires ?? []).some((w) => w.id === node.id && (only === undefined || (w.port ?? 0) === only));
      if (wired) leaveSubflow(template.id, outPort, at);
    });
  };
  /** Leaves subflow template `template` by its output `port`: on along the wires of the instance (the known one, else every one). */
  const leaveSubflow = (template: string, port: number, at: Position): void => {
    const known = at.instances.length > 0 ? byId.get(at.instances[at.instances.length - 1]) : undefined;
    const outer = known ? at.instances.slice(0, -1) : [];
    for (const instance of known ? [known] : (instancesOf.get(template) ?? [])) {
      if (runs(instance, byId)) follow(instance, { id: instance.id, instances: outer, calls: at.calls }, port);
    }
  };

  follow(start, { id: start.id, instances, calls: [] }, 0);
  while (queue.length > 0) {
    const at = queue.shift() as Position;
    const node = byId.get(at.id);
    if (!node || !runs(node, byId)) continue;
    if (node.type === DONE_NODE_TYPE) return true;

    const template = SUBFLOW_INSTANCE.exec(node.type)?.[1];
    if (template) {
      // Into the template: its input's wires, and an input wired straight to an output.
      const def = byId.get(template);
      const inside = { ...at, instances: [...at.instances, node.id] };
      for (const w of def?.in?.[0]?.wires ?? []) visit(w.id, inside.instances, at.calls);
      (def?.out ?? []).forEach((out, port) => {
        if ((out.wires ?? []).some((w) => w.id === template)) leaveSubflow(template, port, inside);
      });
    } else if (node.type === 'link out') {
      if (node.mode !== 'return') for (const target of node.links ?? []) visit(target, at.instances, at.calls);
      else if (at.calls.length > 0) {
        const caller = byId.get(at.calls[at.calls.length - 1]);
        if (caller) follow(caller, { id: caller.id, instances: at.instances, calls: at.calls.slice(0, -1) });
      } else {
        // Which call it returns to is not known: to every one.
        for (const caller of linkCalls) follow(caller, { id: caller.id, instances: at.instances, calls: [] });
      }
    } else if (node.type === 'link call') {
      // A recursive call folds back onto the earlier call, so the stacks stay finite.
      const earlier = at.calls.indexOf(node.id);
      const calls = earlier === -1 ? [...at.calls, node.id] : at.calls.slice(0, earlier + 1);
      const targets =
        node.linkType === 'dynamic'
          ? linkIns.filter((n) => (isTemplate(node.z, byId) ? n.z === node.z : !isTemplate(n.z, byId))).map((n) => n.id)
          : (node.links ?? []);
      for (const target of targets) visit(target, at.instances, calls);
    } else follow(node, at);

    // A complete node watching this node: it sends when this node has finished a message.
    for (const complete of completes) {
      if (complete.z !== node.z || !Array.isArray(complete.scope) || complete.scope.indexOf(node.id) === -1) continue;
      const key = `${complete.id}|${at.instances.join('/')}|${at.calls.join('/')}`;
      if (completeSeen.has(key)) continue;
      completeSeen.add(key);
      visit(complete.id, at.instances, at.calls);
    }
  }
  return false;
}

/** Whether `node` runs: not disabled, nor on a disabled flow. */
function runs(node: FlowNodeConfig, byId: Map<string, FlowNodeConfig>): boolean {
  if (node.d === true) return false;
  const flow = node.z ? byId.get(node.z) : undefined;
  return !(flow && flow.type === 'tab' && flow.disabled === true);
}

function isTemplate(z: string | undefined, byId: Map<string, FlowNodeConfig>): boolean {
  return !!z && byId.get(z)?.type === 'subflow';
}

/**
 * The subflow instances, outermost first, of a node whose runtime `z` is
 * `z`: an instance's own id, or for an instance inside another instance
 * `<outer instance's runtime id>-<its id in the template>`. Empty when it
 * cannot be told.
 */
function instancePath(z: string | undefined, byId: Map<string, FlowNodeConfig>): string[] {
  if (!z) return [];
  const isInstance = (id: string): boolean => SUBFLOW_INSTANCE.test(byId.get(id)?.type ?? '');
  if (isInstance(z)) {
    const outerZ = byId.get(z)?.z;
    // A top-level instance: on a tab.
    return isTemplate(outerZ, byId) ? [] : [z];
  }
  for (const [id, n] of byId) {
    if (!z.endsWith(`-${id}`) || !SUBFLOW_INSTANCE.test(n.type)) continue;
    const outer = instancePath(z.slice(0, -(id.length + 1)), byId);
    if (outer.length > 0) return [...outer, id];
  }
  return [];
}
