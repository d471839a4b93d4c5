/**
 * detection-in: the editor dialog (compiled into dist/nodes/detection-in/detection-in.html by scripts/build.js).
 */
(function () {
  interface DetectionInNode extends EditorNode {
    path?: string;
    listener?: string;
  }
  /** Where the bridge can reach a receiver (GET detection-in/addresses): base URLs, and whether only this machine or network can. */
  interface Reach {
    bases: string[];
    loopbackOnly?: boolean;
    localOnly?: boolean;
  }
  const authRule = DetectionBridgeEditor.ruleOf('detection-in', 'auth');
  /** A new receiver's acknowledgement mode and authentication (lib's defaults), what the dialog falls back to. */
  const ACK_MODE_DEFAULT = String(DetectionBridgeEditor.ruleOf('detection-in', 'ackMode').default);
  const AUTH_DEFAULT = String(authRule.default);
  const validators = DetectionBridgeEditor.validators('detection-in');
  const check = validators.check;
  const redisCheck = validators.config('redis', 'redis-gone');
  /** Whether `node`'s edit dialog is open (its fields then hold the values being edited, not yet saved on the node). */
  function inDialog(node: EditorNode): boolean {
    return DetectionBridgeEditor.inDialog(node, '#node-input-ackMode');
  }
  /** A property as the open dialog shows it, else as saved. */
  function current(node: EditorNode, name: string, fallback: string): string {
    const value = inDialog(node) ? $('#node-input-' + name).val() : node[name];
    return value === undefined || value === null || value === '' ? fallback : String(value);
  }
  /** Whether a field that only applies in some acknowledgement modes applies to `node`. */
  function inModes(...modes: string[]) {
    return function (node: EditorNode): boolean {
      return modes.indexOf(current(node, 'ackMode', ACK_MODE_DEFAULT)) !== -1;
    };
  }
  /** What is wrong with a path (the key of its message), or undefined; `//Hooks/A/` and `/hooks/a` are one route (both lib/http/route-path.ts). */
  const pathProblem = DetectionBridgeRoutes.routePathProblem;
  const routeOf = DetectionBridgeRoutes.typedRouteKey;
  /** Whether `n` runs when deployed: not disabled, nor on a disabled flow. */
  function runs(n: EditorNode): boolean {
    const flow = n.z ? RED.nodes.workspace(n.z) : null;
    return !n.d && !(flow && flow.disabled);
  }
  /** Where a receiver listens: its listener configuration node, else Node-RED's own server ('').
   *  The dialog's "none" of an optional configuration node has the value _ADD_. */
  function listenerOf(n: unknown): string {
    return n && n !== '_ADD_' ? String(n) : '';
  }
  /**
   * The first other node that takes POSTs on `path` at the same listener as
   * `node`: another detection in, or a core http in for POST (on Node-RED's
   * server); null when there is none.
   */
  function pathUser(node: EditorNode, path: unknown, listener: string): EditorNode | null {
    const route = routeOf(path);
    let found: EditorNode | null = null;
    RED.nodes.eachNode(function (n) {
      if (found || n.id === node.id || !runs(n)) return;
      if (n.type === 'detection-in' && listenerOf(n.listener) === listener && routeOf(n.path) === route) found = n;
      else if (n.type === 'http in' && listener === '' && String(n.method).toLowerCase() === 'post' && routeOf(n.url) === route) found = n;
    });
    return found;
  }
  /** `base`, else `base-2`, `base-3`, …: the first no other node of the workspace takes on `listener`. */
  function freePath(node: EditorNode, base: string, listener: string): string {
    let stem =
      String(base || '/detections')
        .trim()
        .replace(/\/+$/, '')
        .replace(/-\d+$/, '') || '/detections';
    if (stem.charAt(0) !== '/') stem = '/' + stem;
    let candidate = base;
    for (let i = 2; pathUser(node, candidate, listener); i++) candidate = stem + '-' + i;
    return candidate;
  }
  /** What the validator and the dialog say of a path another node already takes, or null. */
  function pathInUse(node: EditorNode, path: unknown, listener: string): EditorVerdict | null {
    const other = pathUser(node, path, listener);
    if (!other) return null;
    const flow = RED.nodes.workspace(other.z) || RED.nodes.subflow(other.z);
    const vars = {
      path: String(path).trim(),
      name: RED.utils.getNodeLabel(other, other.type),
      flow: flow ? flow.label || flow.name || flow.id : '',
      free: freePath(node, String(path), listener),
    };
    return typeof node._ === 'function' ? node._('detection-in.validators.path-in-use', vars) : false;
  }
  /** The credentials each mode needs (lib/receiver/auth-config.ts). */
  const NEEDED = DetectionBridgeAuth.AUTH_CREDENTIALS;
  /** Whether credential `name` is set (a deployed node's stay in the runtime: see DetectionBridgeEditor.hasCredential). */
  function hasCredential(node: EditorNode, name: string): boolean {
    return DetectionBridgeEditor.hasCredential(node, name, '#node-input-ackMode');
  }
  /** The message for credentials the chosen mode needs and the node does not have, else true. */
  function credentialsCheck(node: EditorNode, mode: string): EditorVerdict {
    const missing = (NEEDED[mode] || []).filter(function (name) {
      return !hasCredential(node, name);
    });
    return check(node, missing.length === 0, 'credentials-' + mode);
  }
  /** A credential field's own check (marks the field in the dialog). */
  function credentialField(mode: string) {
    return function (this: EditorNode, v: unknown, _opt?: unknown): EditorVerdict {
      return check(this, current(this, 'auth', AUTH_DEFAULT) !== mode || (v !== undefined && v !== ''), 'credentials-' + mode);
    };
  }
  const HEADER_NAME = DetectionBridgeAuth.HEADER_NAME;
  const AUTH_ROWS: Record<string, string[]> = {
    none: [],
    basic: ['.detection-in-row-user', '.detection-in-row-password'],
    bearer: ['.detection-in-row-token'],
    header: ['.detection-in-row-header-name', '.detection-in-row-header-value'],
  };

  /** A dead letter as GET detection-bridge/dead-letters/:id lists it (lib/delivery/types.ts DeadLetter). */
  interface DeadLetterItem {
    id: string;
    messageId?: string;
    attempts: number;
    lastError: string;
    deadAt: number;
  }
  /** The "Dead letters" section: what the deployed receiver keeps aside, with Replay and Discard. */
  function showDeadLetters(node: EditorNode): void {
    const url = 'detection-bridge/dead-letters/' + encodeURIComponent(node.id);
    const count = $('#detection-in-dead-count');
    const table = $('#detection-in-dead-list');
    const replayAll = $('#detection-in-dead-replay-all');
    function act(action: 'replay' | 'discard', ids?: string[]): void {
      $.ajax({
        url: url + '/' + action,
        method: 'POST',
        contentType: 'application/json',
        data: JSON.stringify(ids ? { ids: ids } : {}),
        dataType: 'json',
      })
        .done(function (answer: { replayed?: number; discarded?: number }) {
          const n = action === 'replay' ? answer.replayed || 0 : answer.discarded || 0;
          RED.notify(node._('detection-in.deadLetters.' + (action === 'replay' ? 'replayed' : 'discarded'), { count: n }), { type: 'success' });
          load();
        })
        .fail(function (xhr: JQuery.jqXHR) {
          RED.notify(node._('detection-in.deadLetters.unreachable', { message: problemText(xhr) }), { type: 'error' });
          load();
        });
    }
    function problemText(xhr: JQuery.jqXHR): string {
      const body = xhr.responseJSON as { detail?: string } | undefined;
      return (body && body.detail) || xhr.statusText || String(xhr.status);
    }
    function render(items: DeadLetterItem[]): void {
      count.text(items.length === 0 ? node._('detection-in.deadLetters.none') : node._('detection-in.deadLetters.count', { count: items.length }));
      replayAll.toggle(items.length > 0);
      const body = table.find('tbody').empty();
      items.forEach(function (item) {
        const row = $('<tr>').addClass('detection-in-dead-row').attr('data-id', item.id);
        $('<td>')
          .text(item.messageId || '#' + item.id)
          .appendTo(row);
        $('<td>').text(String(item.attempts)).appendTo(row);
        $('<td>').text(item.lastError).css({ 'word-break': 'break-word' }).appendTo(row);
        $('<td>').text(new Date(item.deadAt).toLocaleString()).appendTo(row);
        const buttons = $('<td>').css({ 'white-space': 'nowrap' }).appendTo(row);
        $('<button type="button" class="red-ui-button red-ui-button-small detection-in-dead-replay">')
          .text(node._('detection-in.deadLetters.replay'))
          .on('click', function () {
            act('replay', [item.id]);
          })
          .appendTo(buttons);
        $('<button type="button" class="red-ui-button red-ui-button-small detection-in-dead-discard" style="margin-left:4px;">')
          .text(node._('detection-in.deadLetters.discard'))
          .on('click', function () {
            if (window.confirm(node._('detection-in.deadLetters.confirmDiscard'))) act('discard', [item.id]);
          })
          .appendTo(buttons);
        body.append(row);
      });
      table.toggle(items.length > 0);
    }
    function load(): void {
      // optional: a node not deployed yet answers an empty list, not a 404 the browser would log
      $.ajax({ url: url + '?optional=1', method: 'GET', dataType: 'json' })
        .done(function (answer: { items?: DeadLetterItem[]; deployed?: boolean }) {
          if (answer.deployed === false) {
            table.hide();
            replayAll.hide();
            count.text(node._('detection-in.deadLetters.undeployed'));
            return;
          }
          render(Array.isArray(answer.items) ? answer.items : []);
        })
        .fail(function (xhr: JQuery.jqXHR) {
          table.hide();
          replayAll.hide();
          count.text(node._('detection-in.deadLetters.unreachable', { message: problemText(xhr) }));
        });
    }
    replayAll.on('click', function () {
      act('replay');
    });
    $('#detection-in-dead-refresh').on('click', load);
    load();
  }

  /** What a removed receiver left (GET detection-bridge/stranded: lib/delivery/stranded.ts StrandedSummary). */
  interface StrandedItem {
    receiver: string;
    path: string;
    mode: string;
    events: number;
    deadLetters: number;
    file?: string;
    stream?: string;
  }
  /** The type's own message lookup, for what is said outside a dialog (after a delete, after a deploy). */
  function say(key: string, vars?: Record<string, string | number>): string {
    const type = RED.nodes.getType('detection-in') as unknown as { _: (k: string, v?: Record<string, string | number>) => string };
    return type._('detection-in.stranded.' + key, vars);
  }
  function whereKept(item: StrandedItem): string {
    return item.file || item.stream || say('inMemory');
  }
  /** The "Left by removed receivers" section: what deleted receivers still hold, handed to this one on a click. */
  function showStranded(node: EditorNode): void {
    const box = $('#detection-in-stranded');
    const list = $('#detection-in-stranded-list');
    function load(): void {
      $.ajax({ url: 'detection-bridge/stranded', method: 'GET', dataType: 'json' }).done(function (answer: { items?: StrandedItem[] }) {
        const items = Array.isArray(answer.items) ? answer.items : [];
        list.empty();
        box.toggle(items.length > 0);
        items.forEach(function (item) {
          const row = $('<div>').addClass('detection-in-stranded-row').attr('data-receiver', item.receiver).css({ 'margin-top': '4px' });
          $('<span>')
            .text(say('item', { path: item.path, events: item.events, deadLetters: item.deadLetters, where: whereKept(item) }))
            .appendTo(row);
          $('<button type="button" class="red-ui-button red-ui-button-small detection-in-stranded-take" style="margin-left:6px;">')
            .text(say('take'))
            .on('click', function () {
              $.ajax({
                url: 'detection-bridge/stranded/' + encodeURIComponent(item.receiver) + '/replay',
                method: 'POST',
                contentType: 'application/json',
                data: JSON.stringify({ to: node.id }),
                dataType: 'json',
              })
                .done(function (out: { events?: number; deadLetters?: number }) {
                  RED.notify(say('taken', { events: out.events || 0, deadLetters: out.deadLetters || 0 }), { type: 'success' });
                  load();
                })
                .fail(function (xhr: JQuery.jqXHR) {
                  const body = xhr.responseJSON as { detail?: string } | undefined;
                  RED.notify(say('notTaken', { message: (body && body.detail) || xhr.statusText || String(xhr.status) }), { type: 'error' });
                  load();
                });
            })
            .appendTo(row);
          list.append(row);
        });
      });
    }
    load();
  }
  /** Once per editor: a receiver deleted while it holds answered events is said at once, and what a deploy left is said after it. */
  function watchRemovals(): void {
    RED.events.on('nodes:remove', function (removed: EditorNode) {
      if (!removed || removed.type !== 'detection-in') return;
      const id = removed.id;
      const path = String((removed as DetectionInNode).path || '');
      // A node re-imported over itself is removed and added again at once: only a receiver still gone counts.
      setTimeout(function () {
        if (RED.nodes.node(id)) return;
        $.ajax({ url: 'detection-bridge/held/' + encodeURIComponent(id), method: 'GET', dataType: 'json' }).done(function (held: {
          events?: number;
          deadLetters?: number;
        }) {
          const events = held.events || 0;
          const deadLetters = held.deadLetters || 0;
          if (events + deadLetters > 0)
            RED.notify(say('deleted', { path: path, events: events, deadLetters: deadLetters }), { type: 'warning', timeout: 15000 });
        });
      }, 0);
    });
    RED.events.on('deploy', function () {
      $.ajax({ url: 'detection-bridge/stranded', method: 'GET', dataType: 'json' }).done(function (answer: { items?: StrandedItem[] }) {
        (Array.isArray(answer.items) ? answer.items : []).forEach(function (item) {
          RED.notify(say('afterDeploy', { path: item.path, events: item.events, deadLetters: item.deadLetters, where: whereKept(item) }), {
            type: 'warning',
            timeout: 15000,
          });
        });
      });
    });
  }
  watchRemovals();

  DetectionBridgeEditor.define<DetectionInNode>('detection-in', {
    icon: 'detection-in.svg',
    appliesTo: {
      journalMaxMiB: inModes('disk'),
      redeliverAfterSeconds: inModes('memory', 'disk'),
      streamMaxEvents: inModes('redis'),
      streamMaxMiB: inModes('redis'),
      claimAfterSeconds: inModes('redis'),
    },
    defaults: {
      path: {
        value: '/detections',
        // and no other receiver of the workspace on the same listener takes it (only one of them could listen)
        validate: function (v, _opt) {
          const problem = pathProblem(v);
          if (problem) return check(this, false, problem);
          const inUse = pathInUse(this, v, listenerOf(current(this, 'listener', '')));
          return inUse === null ? true : inUse;
        },
      },
      // none: Node-RED's own server; else the detection-listener whose port serves this receiver
      listener: { value: '', type: 'detection-listener', required: false },
      // a receiver without the credentials of its mode does not start: flagged until they are set
      auth: {
        value: authRule.default,
        validate: function (v, _opt) {
          if (!DetectionBridgeOptions.checkOption(authRule, v).ok) return false;
          return credentialsCheck(this, String(v === undefined ? authRule.absent : v));
        },
      },
      headerName: {
        value: '',
        validate: function (v, _opt) {
          if (current(this, 'auth', AUTH_DEFAULT) !== 'header') return true;
          const name = String(v || '').trim();
          return check(this, HEADER_NAME.test(name), name === '' ? 'headerName-empty' : 'headerName');
        },
      },
      redis: {
        value: '',
        type: 'detection-redis',
        // needed only when acknowledging after writing to Redis
        validate: function (v, _opt) {
          if (current(this, 'ackMode', ACK_MODE_DEFAULT) !== 'redis') return true;
          return redisCheck.call(this, v, _opt);
        },
      },
    },
    credentials: {
      user: { type: 'text', validate: credentialField('basic') },
      password: { type: 'password', validate: credentialField('basic') },
      token: { type: 'password', validate: credentialField('bearer') },
      headerValue: { type: 'password', validate: credentialField('header') },
    },
    outputs: 3,
    label: function () {
      return this._('detection-in.label.node', { path: this.path || '/detections' });
    },
    outputLabels: function (index) {
      return this._(
        ['detection-in.outputs.events', 'detection-in.outputs.invalid', 'detection-in.outputs.failures'][index] || 'detection-in.outputs.events',
      );
    },
    onadd: function () {
      // A new receiver from the palette (not yet in the workspace; an imported or pasted
      // one keeps the path its flow was written for): a path no other receiver takes.
      if (RED.nodes.node(this.id)) return;
      this.path = freePath(this, this.path || '/detections', listenerOf(this.listener));
    },
    oneditprepare: function () {
      const node = this;
      function showPathInUse() {
        const path = String($('#node-input-path').val() || '');
        const inUse = pathProblem(path) ? null : pathInUse(node, path, listenerOf(current(node, 'listener', '')));
        $('#detection-in-path-in-use-text').text(inUse || '');
        $('#detection-in-path-in-use').toggle(!!inUse);
      }
      function showAuthRows() {
        const mode = String($('#node-input-auth').val());
        $('.detection-in-auth-row').hide();
        (AUTH_ROWS[mode] || []).forEach(function (sel) {
          $(sel).show();
        });
      }
      // Where the bridge can reach this Node-RED: the runtime's addresses (the browser's
      // host is 127.0.0.1 when the editor is opened on the same machine). Until they
      // arrive, or if they cannot be had, the browser's host.
      let reach: Reach = { bases: [location.protocol + '//' + location.host], loopbackOnly: false, localOnly: false };
      // On a listener: its protocol, port and address, and no httpNodeRoot.
      const listenerReach: Record<string, Reach> = {};
      function chosenListener() {
        const id = String($('#node-input-listener').val() || '');
        return id && id !== '_ADD_' ? RED.nodes.node(id) : null;
      }
      function showUrl() {
        const door = chosenListener();
        if (door) {
          const query = { port: String(door.port), https: door.tls !== 'none', host: String(door.host || '') };
          const cacheKey = JSON.stringify(query);
          let found = listenerReach[cacheKey];
          if (!found) {
            listenerReach[cacheKey] = { bases: [(query.https ? 'https://' : 'http://') + location.hostname + ':' + door.port] };
            $.getJSON('detection-in/addresses', query).done(function (data: Reach | null) {
              if (data && Array.isArray(data.bases) && data.bases.length) listenerReach[cacheKey] = data;
              showUrl();
            });
            found = listenerReach[cacheKey];
          }
          let lp = String($('#node-input-path').val() || '').trim();
          if (lp && lp.charAt(0) !== '/') lp = '/' + lp;
          const lurls = found.bases.map(function (b) {
            return b + lp;
          });
          $('#detection-in-url').text(lurls[0]);
          const lmore = $('#detection-in-url-more').empty();
          lurls.slice(1).forEach(function (u) {
            lmore.append($('<code>').text(u)).append(' ');
          });
          $('#detection-in-url-others').toggle(lurls.length > 1);
          $('#detection-in-url-loopback').toggle(!!found.loopbackOnly);
          $('#detection-in-url-local').toggle(!!found.localOnly && !found.loopbackOnly);
          return;
        }
        const root = RED.settings.httpNodeRoot;
        if (root === false) {
          $('#detection-in-url').text(node._('detection-in.tip.http-disabled'));
          $('.detection-in-url-note').hide();
          return;
        }
        let p = String($('#node-input-path').val() || '').trim();
        if (p && p.charAt(0) !== '/') p = '/' + p;
        const rootPath = (typeof root === 'string' ? root : '/').replace(/\/$/, '');
        const urls = reach.bases.map(function (b) {
          return b + rootPath + p;
        });
        $('#detection-in-url').text(urls[0]);
        const more = $('#detection-in-url-more').empty();
        urls.slice(1).forEach(function (u) {
          more.append($('<code>').text(u)).append(' ');
        });
        $('#detection-in-url-others').toggle(urls.length > 1);
        $('#detection-in-url-loopback').toggle(!!reach.loopbackOnly);
        $('#detection-in-url-local').toggle(!!reach.localOnly && !reach.loopbackOnly);
      }
      $.getJSON('detection-in/addresses').done(function (data) {
        if (data && Array.isArray(data.bases) && data.bases.length) reach = data;
        showUrl();
      });
      // A flow saved before validation modes: its "accept" carries over, its "reject" (the default then) becomes lenient.
      if (!node.validation && node.invalidEvents === 'accept') $('#node-input-validation').val('accept');
      function showModeRows() {
        const mode = $('#node-input-ackMode').val();
        $('.detection-in-row-journal').toggle(mode === 'disk');
        $('.detection-in-row-redis').toggle(mode === 'redis');
        $('.detection-in-row-redeliver').toggle(mode !== 'redis');
      }
      $('#node-input-ackMode').on('change', showModeRows);
      showModeRows();
      // What "Finished when" comes to with the wiring as it is now: the runtime's own
      // analysis (lib/delivery/downstream.ts), run on the editor's flows.
      const doneWired = DetectionBridgeDownstream.doneDownstream(RED.nodes.createCompleteNodeSet({ credentials: false }), node.id);
      function showCompletion() {
        const choice = $('#node-input-finishedWhen').val() || 'auto';
        const key =
          choice === 'handed'
            ? 'finished-handed'
            : choice === 'done'
              ? doneWired
                ? 'finished-done'
                : 'finished-no-done'
              : doneWired
                ? 'finished-auto-done'
                : 'finished-auto-none';
        $('#detection-in-finished-tip').text(node._('detection-in.tip.' + key));
        $('#detection-in-finished-warning').toggle(key === 'finished-no-done');
      }
      // a node saved before the option: automatic, as the runtime takes it
      if (!node.finishedWhen) $('#node-input-finishedWhen').val('auto');
      $('#node-input-finishedWhen').on('change', showCompletion);
      showCompletion();
      $('#node-input-auth').on('change', showAuthRows);
      $('#node-input-path').on('input change', showUrl);
      $('#node-input-path').on('input change', showPathInUse);
      $('#node-input-listener').on('change', showPathInUse);
      showPathInUse();
      $('#node-input-listener').on('change', showUrl);
      showAuthRows();
      showUrl();
      showDeadLetters(node);
      showStranded(node);
    },
  });
})();
