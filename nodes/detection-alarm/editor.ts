/**
 * detection-alarm: the editor dialog (compiled into dist/nodes/detection-alarm/detection-alarm.html by scripts/build.js).
 */
(function () {
  interface AlarmNode extends EditorNode {
    keyBy?: string;
    lookalike?: boolean;
    scope?: string;
    linkPath?: string;
    listener?: string;
  }
  interface HistoryRow {
    at: string;
    action: string;
    label: string;
    by: string;
    via?: string;
    note?: string;
    held?: number;
  }
  const TYPE = 'detection-alarm';
  const option = DetectionBridgeEditor.option;
  const ruleOf = DetectionBridgeEditor.ruleOf;
  const validators = DetectionBridgeEditor.validators(TYPE);
  const check = validators.check;
  const redisCheck = validators.config('redis', 'redis-gone');
  const DEFAULT_CLASSES = DetectionBridgePlates.DEFAULT_LOOKALIKE_CLASSES;

  function inDialog(node: EditorNode): boolean {
    return DetectionBridgeEditor.inDialog(node, '#node-input-scope');
  }
  function fieldOf(node: EditorNode, name: string, fallback: string): string {
    const value = inDialog(node) ? $('#node-input-' + name).val() : node[name];
    return String(value === undefined || value === null || value === '' ? fallback : value);
  }
  function lookalikeOn(node: EditorNode): boolean {
    const keyBy = fieldOf(node, 'keyBy', 'subject');
    if (keyBy === 'camera' || keyBy === 'externalId') return false;
    if (inDialog(node)) return $('#node-input-lookalike').is(':checked');
    return node.lookalike !== false && node.lookalike !== 'false';
  }
  /** The page's path as the runtime serves it. */
  function pathOf(node: AlarmNode, typed: unknown): string {
    const path = String(typed === undefined || typed === null ? '' : typed).trim();
    return path === '' ? '/detection-alarm/' + node.id : DetectionBridgeRoutes.normalizeNodePath(path).replace(/\/+$/, '');
  }
  function esc(text: unknown): string {
    return $('<span>')
      .text(String(text === undefined || text === null ? '' : text))
      .html();
  }

  DetectionBridgeEditor.define<AlarmNode>('detection-alarm', {
    icon: 'detection-alarm.svg',
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
          const parsed = DetectionBridgePlates.parseLookalikeClasses(String(v === undefined || v === null ? '' : v));
          return check(this, parsed.ok, 'classes');
        },
      },
      remind: option(TYPE, 'remind'),
      remindUnits: option(TYPE, 'remindUnits'),
      maxReminders: option(TYPE, 'maxReminders'),
      escalate: option(TYPE, 'escalate'),
      escalateUnits: option(TYPE, 'escalateUnits'),
      quiet: option(TYPE, 'quiet'),
      quietUnits: option(TYPE, 'quietUnits'),
      snoozeFor: option(TYPE, 'snoozeFor'),
      snoozeUnits: option(TYPE, 'snoozeUnits'),
      snoozeScope: option(TYPE, 'snoozeScope'),
      urgentPierces: option(TYPE, 'urgentPierces'),
      maxOpen: option(TYPE, 'maxOpen'),
      historyMax: option(TYPE, 'historyMax'),
      historyDays: option(TYPE, 'historyDays'),
      linkBase: {
        value: '',
        validate: function (v, _opt) {
          const base = String(v === undefined || v === null ? '' : v).trim();
          return check(this, base === '' || DetectionBridgeUrls.baseUrlProblem(base.replace(/\/+$/, '')) === undefined, 'linkBase');
        },
      },
      linkPath: {
        value: '',
        validate: function (v, _opt) {
          const path = String(v === undefined || v === null ? '' : v).trim();
          return check(this, path === '' || DetectionBridgeRoutes.routePathProblem(path) === undefined, 'linkPath');
        },
      },
      linkHours: option(TYPE, 'linkHours'),
      listener: { value: '', type: 'detection-listener', required: false },
      scope: option(TYPE, 'scope'),
      redis: {
        value: '',
        type: 'detection-redis',
        validate: function (v, _opt) {
          if (fieldOf(this, 'scope', 'local') !== 'redis') return true;
          return redisCheck.call(this, v, _opt);
        },
      },
      sharedName: {
        value: '',
        validate: function (v, _opt) {
          const name = String(v || '').trim();
          return check(this, fieldOf(this, 'scope', 'local') !== 'redis' || (name.length <= 200 && !/[:\s{}]/.test(name)), 'sharedName');
        },
      },
    },
    credentials: { linkSecret: { type: 'password' } },
    inputs: 1,
    outputs: 5,
    inputLabels: function () {
      return this._('detection-alarm.inputs.events');
    },
    outputLabels: function (index: number) {
      return this._('detection-alarm.outputs.' + ['notify', 'escalate', 'changes', 'replies', 'telegram'][index]);
    },
    property: ['msg', 'flow', 'global'],
    oneditprepare: function () {
      const node = this;
      for (const name of ['remind', 'escalate', 'quiet']) $('#node-input-' + name).spinner({ min: 0 });
      $('#node-input-snoozeFor').spinner({ min: 0.001 });
      for (const name of ['maxReminders', 'maxOpen', 'historyMax']) {
        const rule = ruleOf(TYPE, name);
        if (rule.kind === 'number') $('#node-input-' + name).spinner({ min: rule.min, max: rule.max });
      }
      function showPlates() {
        const keyBy = $('#node-input-keyBy').val();
        const plates = keyBy !== 'camera' && keyBy !== 'externalId';
        $('.detection-alarm-plates').toggle(plates);
        $('.detection-alarm-classes').toggle(plates && $('#node-input-lookalike').is(':checked'));
      }
      function showScope() {
        $('.detection-alarm-shared').toggle($('#node-input-scope').val() === 'redis');
      }
      function showPath() {
        const base = String($('#node-input-linkBase').val() || '')
          .trim()
          .replace(/\/+$/, '');
        const onListener = String($('#node-input-listener').val() || '') !== '' && $('#node-input-listener').val() !== '_ADD_';
        const root = onListener ? '' : String(RED.settings.httpNodeRoot || '/').replace(/\/+$/, '');
        $('#detection-alarm-path').text((base || '…') + root + pathOf(node, $('#node-input-linkPath').val()) + '/…');
      }
      $('#node-input-keyBy, #node-input-lookalike').on('change', showPlates);
      $('#node-input-scope').on('change', showScope);
      $('#node-input-linkBase, #node-input-linkPath, #node-input-listener').on('change keyup', showPath);
      showPlates();
      showScope();
      showPath();

      // the history of actions, from the deployed node
      const list = $('#detection-alarm-history');
      $.getJSON('detection-bridge/alarms/' + encodeURIComponent(node.id) + '?optional=1')
        .done(function (book: { deployed: boolean; history: HistoryRow[] }) {
          if (!book.deployed) {
            list.text(node._('detection-alarm.tip.history-unavailable'));
            return;
          }
          if (book.history.length === 0) {
            list.text(node._('detection-alarm.tip.history-none'));
            return;
          }
          const rows = book.history.map(function (h) {
            const when = new Date(h.at).toLocaleString();
            const who = h.by ? esc(h.by) + (h.via ? ' (' + esc(h.via) + ')' : '') : '—';
            const what = esc(node._('detection-alarm.action.' + h.action)) + (h.label ? ' · ' + esc(h.label) : '');
            const extra = (h.note ? ' · ' + esc(h.note) : '') + (h.held ? ' · ' + esc(node._('detection-alarm.action.held', { count: h.held })) : '');
            return '<tr><td>' + esc(when) + '</td><td>' + what + extra + '</td><td class="detection-alarm-by">' + who + '</td></tr>';
          });
          list.html('<table class="detection-alarm-history">' + rows.join('') + '</table>');
        })
        .fail(function () {
          list.text(node._('detection-alarm.tip.history-unavailable'));
        });
    },
  });
})();
