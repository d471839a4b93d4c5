/**
 * detection-filter: the editor dialog (compiled into dist/nodes/detection-filter/detection-filter.html by scripts/build.js).
 */

/** A message of lib (a key of the node's catalog, which holds shared.json too, and its values). */
interface LibMessage {
  key: string;
  params?: Record<string, string | number | LibMessage>;
}
/** A time window as lib/events/time-window.ts reads it: days a mask (bit 0 Monday), from and to minutes of the day. */
interface EditorTimeWindow {
  days: number;
  from: number;
  to: number;
}
/** lib/events/time-window.ts, served by detection-bridge/editor.js: windows are read and written as the runtime does. */
declare const DetectionBridgeTimeWindows: {
  parseWindows(value: unknown): { ok: true; windows: EditorTimeWindow[] } | { ok: false; problem: LibMessage };
  formatWindows(windows: readonly EditorTimeWindow[], dash?: string): string;
  daysText(days: number, dash?: string): string;
  clockText(minutes: number): string;
  minutesOf(text: string): number | undefined;
  timeZoneProblem(zone: unknown): LibMessage | undefined;
  knownTimeZone(zone: unknown): string | undefined;
  readonly WEEKDAYS: readonly string[];
  readonly EVERY_DAY: number;
  readonly DAY_MINUTES: number;
};

/** lib/events/filter-rules.ts, served by detection-bridge/editor.js: what a rule may be, its check and its summary, as the runtime has them. */
declare const DetectionBridgeFilter: {
  readonly RULE_TYPES: readonly string[];
  readonly LIST_SOURCES: readonly string[];
  readonly TIME_SOURCES: readonly string[];
  readonly TIME_KINDS: readonly string[];
  readonly RULE_KINDS: readonly string[];
  isListRule(type: unknown): boolean;
  ruleConfigProblem(rule: object): LibMessage | undefined;
  ruleSummary(rule: object, plates: { lookalikes: number; extraMissing: number }): LibMessage;
  summaryLine(summaries: readonly LibMessage[], combine: string, translate: (key: string, vars?: Record<string, unknown>) => string): string;
  messageText(message: LibMessage, translate: (key: string, vars?: Record<string, unknown>) => string): string;
  /** The items of a typed list (lib/events/filter-lists.ts). */
  listItems(value: unknown): string[];
};

(function () {
  /** A rule as the node saves it (lib/events/filter.ts reads it): type, value, where a list or the windows come from, a context key or inside/outside, urgent. */
  interface FilterRule {
    t: string;
    v?: string;
    vt?: string;
    k?: string;
    /** Saved only when checked: a rule without it is not urgent, as every rule saved before it. */
    u?: boolean;
  }
  interface DetectionFilterNode extends EditorNode {
    rules?: FilterRule[];
    combine?: string;
    tagPrefix?: string;
    timeZone?: string;
    plateLookalikes?: string;
    plateExtraMissing?: string;
    plateClasses?: string;
    plateSimilar?: boolean;
  }
  /** What the preview endpoint answers (nodes/detection-filter/preview.ts, lib/plates/preview.ts). */
  interface PreviewDifference {
    position: number;
    entry: string;
    read: string;
    kind: string;
  }
  interface PreviewExample {
    plate: string;
    similar1Plate?: string;
    change: { lookalikes: number; extra: number; missing: number; unrelated: number; similar1Plate: boolean };
    match?: { kind: string; against: string; differences: PreviewDifference[]; score: number };
  }
  interface PreviewAnswer {
    problem?: string;
    entry?: string;
    accepted?: PreviewExample[];
    refused?: PreviewExample[];
  }
  const windowsLib = DetectionBridgeTimeWindows;
  const rulesLib = DetectionBridgeFilter;
  const { RULE_TYPES: TYPES, LIST_SOURCES: SOURCES, TIME_SOURCES, TIME_KINDS } = rulesLib;
  /**
   * The dialog's own sentence ("Rule 2: enter at least one tag") for each of
   * lib's problems (filter.problem.<key>); any other problem (a time window's)
   * is lib's words after "Rule 2: ".
   */
  const WORDS: Record<string, string> = {
    'type-missing': 'type',
    type: 'type',
    kind: 'kind',
    'tag-empty': 'tag',
    'camera-empty': 'camera',
    'site-empty': 'site',
    'plate-empty': 'plate',
    source: 'property',
    property: 'property',
    pattern: 'pattern',
    name: 'name',
    confidence: 'confidence',
    'confidence-empty': 'confidence',
    'context-key': 'context',
    'time-kind': 'time-kind',
    'time-source': 'windows-property',
    'time-property': 'windows-property',
    'time-env-name': 'windows-property',
  };
  /** A new time rule's window, and a window added to a rule: every night. */
  const NEW_WINDOWS = '22:00-06:00';
  const check = DetectionBridgeEditor.validators('detection-filter').check;
  /** The rule list's least height (px), as Node-RED's own lists. */
  const RULES_MIN_HEIGHT = 150;
  /** The height oneditresize last gave the open dialog's form (0 before it has). */
  let formHeight = 0;
  /** The look-alike classes a new node gets (lib/plates/lookalike.ts, served by detection-bridge/editor.js). */
  const DEFAULT_CLASSES = DetectionBridgePlates.DEFAULT_LOOKALIKE_CLASSES;

  /**
   * What is wrong with look-alike classes as typed, as the runtime reads them
   * (lib/plates/lookalike.ts parseLookalikeClasses): the key of lib's message
   * (plates.*, merged into this node's catalog) and its parameters, or null.
   */
  function classesProblem(v: unknown): { key: string; vars: Record<string, string> } | null {
    const parsed = DetectionBridgePlates.parseLookalikeClasses(str(v));
    return parsed.ok ? null : { key: parsed.problem.key, vars: (parsed.problem.params || {}) as Record<string, string> };
  }

  /** Whether the node has a plate rule (the plate options matter only then). */
  function hasPlateRule(rules: unknown): boolean {
    return (
      Array.isArray(rules) &&
      rules.some(function (r) {
        return r && r.t === 'plate';
      })
    );
  }

  /** A typed prefix as the runtime uses it: '' for none; null when not valid. */
  const prefixOf = DetectionBridgeEditor.tagPrefixOf;
  /** The events bridge chosen for the prefix, or null ('' and _ADD_ are none). */
  function bridgeOf(id: unknown): EditorNode | null {
    return id && id !== '_ADD_' ? RED.nodes.node(String(id)) || null : null;
  }

  function str(v: unknown): string {
    return v === undefined || v === null ? '' : String(v);
  }

  /** The items of a typed list, as the runtime reads them. */
  const items = rulesLib.listItems;
  const isList = rulesLib.isListRule;

  type Translate = (key: string, vars?: Record<string, unknown>) => string;
  /** A lib message in the user's language (lib's messageText). */
  function render(message: LibMessage, _: Translate): string {
    return rulesLib.messageText(message, _);
  }

  /** The node's catalog, or Node-RED's when there is no node to ask. */
  function translatorOf(node: EditorNode | undefined): Translate {
    return node && typeof node._ === 'function'
      ? node._
      : (key: string, vars?: Record<string, unknown>) => RED._(key, vars as Record<string, string | number> | undefined);
  }

  /** Whether a rule can work, as the runtime judges it (lib's ruleConfigProblem). */
  function ruleProblem(rule: FilterRule | undefined): LibMessage | undefined {
    return rulesLib.ruleConfigProblem(rule && typeof rule === 'object' ? rule : {});
  }

  /** The first problem of the rules, in the user's words ("Rule 2: enter at least one tag"), or null. */
  function rulesProblem(node: EditorNode | undefined, rules: unknown): string | null {
    const _ = translatorOf(node);
    if (!Array.isArray(rules)) return _('detection-filter.validators.rules');
    for (let i = 0; i < rules.length; i++) {
      const problem = ruleProblem(rules[i]);
      if (!problem) continue;
      const reason = problem.key.indexOf('filter.problem.') === 0 ? WORDS[problem.key.slice('filter.problem.'.length)] : undefined;
      return reason
        ? _('detection-filter.validators.' + reason, { rule: i + 1 })
        : _('detection-filter.validators.windows', { rule: i + 1, problem: render(problem, _) });
    }
    return null;
  }

  /** Which value field a rule type shows. */
  function fieldFor(t: string): string {
    if (isList(t)) return 'list';
    if (t === 'camera-match' || t === 'name') return 'text';
    if (t === 'confidence') return 'number';
    return t; // kind, context, enrolled, time
  }
  /** A rule row of the dialog as the rule it saves. */
  function exportRule(row: JQuery): FilterRule {
    const t = String(row.find('select.node-input-rule-type').val() || '');
    const rule: FilterRule = { t: t };
    if (isList(t)) {
      const list = row.find('input.node-input-rule-list');
      rule.v = list.typedInput('value');
      rule.vt = list.typedInput('type');
    } else if (t === 'camera-match' || t === 'name') rule.v = String(row.find('input.node-input-rule-text').val());
    else if (t === 'confidence') rule.v = String(row.find('input.node-input-rule-number').val());
    else if (t === 'kind') rule.v = String(row.find('select.node-input-rule-kind').val());
    else if (t === 'context') {
      rule.k = String(row.find('input.node-input-rule-key').val());
      rule.v = String(row.find('input.node-input-rule-context').val());
    } else if (t === 'time') {
      const windows = row.find('input.node-input-rule-windows');
      rule.k = String(row.find('select.node-input-rule-when').val());
      rule.v = windows.typedInput('value');
      rule.vt = windows.typedInput('type');
    }
    if (row.find('input.node-input-rule-urgent').prop('checked')) rule.u = true;
    return rule;
  }

  /** One line for the label: `tag VIP, Banned · camera Gate 2`, as the runtime's status says it (lib's words, in shared.json). */
  function summary(node: DetectionFilterNode): string {
    const rules = Array.isArray(node.rules) ? node.rules : [];
    if (!rules.length || rulesProblem(node, rules)) return '';
    const plates = { lookalikes: Number(node.plateLookalikes) || 0, extraMissing: Number(node.plateExtraMissing) || 0 };
    const parts = rules.map(function (r) {
      return rulesLib.ruleSummary(r, plates);
    });
    return rulesLib.summaryLine(parts, node.combine === 'any' ? 'any' : 'all', (key, vars) => node._(key, vars));
  }

  /**
   * Makes the rule list as tall as its rules (a time rule's windows included), so
   * that none hides in a scroll box of its own; but no taller than the form
   * leaves under the rows above it: a long list scrolls, and the rows under it
   * (plate matching, time zone) are reached by scrolling the dialog.
   */
  function fitRules() {
    const container = $('#node-input-rule-container');
    const scroller = container.parent();
    const list = container.closest('.red-ui-editableList');
    if (!container.length || !list.length) return;
    // what the list holds besides its rows: its border, padding and add button (editableList's own measure)
    const chrome = (list.height() || 0) - (scroller.height() || 0);
    let wanted = (container.outerHeight(true) || 0) + chrome + 2;
    if (formHeight > 0) {
      const ruleRow = $('#dialog-form>div.node-input-rule-container-row');
      // the rows above (measured as laid out: the editor puts hidden helpers of its own in the form)
      const above = (ruleRow.offset() || { top: 0 }).top - ($('#dialog-form').offset() || { top: 0 }).top;
      const label = ruleRow.children('label').outerHeight(true) || 0;
      wanted = Math.min(wanted, formHeight - above - label);
    }
    container.editableList('height', Math.max(RULES_MIN_HEIGHT, Math.round(wanted)));
  }

  DetectionBridgeEditor.define<DetectionFilterNode>('detection-filter', {
    icon: 'detection-filter.svg',
    defaults: {
      property: { value: 'payload', required: true, validate: RED.validators.typedInput('propertyType') },
      propertyType: { value: 'msg' },
      rules: {
        value: [],
        // two arguments: Node-RED (3.1+) then shows the string returned as the reason
        validate: function (v, _opt) {
          const problem = rulesProblem(this, v);
          return problem === null ? true : problem;
        },
      },
      // How plate rules match: lib/plates through lib/events/filter.ts.
      plateClasses: {
        value: DEFAULT_CLASSES,
        // checked only where it is used, as at run time: a plate rule that allows look-alikes
        validate: function (v, _opt) {
          if (!hasPlateRule(this.rules) || !(Number(this.plateLookalikes) > 0)) return true;
          const problem = classesProblem(v);
          if (!problem) return true;
          return typeof this._ === 'function'
            ? this._('detection-filter.validators.plateClasses', { problem: this._(problem.key, problem.vars) })
            : false;
        },
      },
      // The account's tag prefix: typed here, else the chosen events bridge's (optional, only for tag rules).
      tagPrefix: {
        value: '',
        validate: function (v, _opt) {
          return check(this, prefixOf(v) !== null, 'tagPrefix');
        },
      },
      // The zone time rules judge events in that carry none of their own; empty: Node-RED's.
      timeZone: {
        value: '',
        validate: function (v, _opt) {
          const problem = windowsLib.timeZoneProblem(v);
          if (!problem) return true;
          const _ = translatorOf(this);
          return _('detection-filter.validators.timeZone', { problem: render(problem, _) });
        },
      },
      bridge: {
        value: '',
        type: 'events-bridge',
        required: false,
        // Only its tag prefix is used here (a bridge still missing its URL or token is no problem for a filter),
        // and only when the filter has none of its own, as at run time.
        validate: function (v, _opt) {
          if (!v || v === '_ADD_' || prefixOf(this.tagPrefix)) return true;
          const chosen = RED.nodes.node(v);
          if (!chosen) return check(this, false, 'bridge-gone');
          return check(this, prefixOf(chosen.tagPrefix) !== null, 'bridge-tag-prefix');
        },
      },
      outputs: { value: 1 },
    },
    inputs: 1,
    outputs: 1,
    label: function () {
      return summary(this);
    },
    outputLabels: function (index: number) {
      return this._(index === 0 ? 'detection-filter.outputs.match' : 'detection-filter.outputs.other');
    },
    property: ['msg', 'flow', 'global', 'jsonata', 'env'],
    // a second output for what matches no rule, when asked for
    outputsBy: { field: 'noMatchOutput', count: (other: boolean) => (other ? 2 : 1) },
    oneditprepare: function () {
      const node = this;
      // the form's height is known once oneditresize is called: until then the rule list fits its rules
      formHeight = 0;
      // the preview's state: declared first, as the rule rows (added below) ask for a preview
      const preview = $('#detection-filter-preview');
      let previewTimer: ReturnType<typeof setTimeout> | undefined;
      let previewAsked = 0;
      const typedList = { value: 'list', label: node._('detection-filter.typedList'), icon: 'fa fa-list', hasValue: true };
      const typedWindows = { value: 'windows', label: node._('detection-filter.typedWindows'), icon: 'fa fa-clock-o', hasValue: true };

      /**
       * A time rule's fields: within/outside, the windows (typed, or a msg, flow,
       * global or env property), and under the row a small editor of typed
       * windows (weekday toggles, from and to) that writes the text form, and is
       * redrawn from it when the text is typed.
       */
      function timeFields(rule: FilterRule, fields: JQuery, row: JQuery, changed: () => void) {
        const isTime = rule.t === 'time';
        const when = $(
          '<select class="node-input-rule-when detection-filter-field detection-filter-value-field" data-for="time" style="width:110px; flex:none;"></select>',
        ).appendTo(fields);
        TIME_KINDS.forEach(function (k) {
          $('<option></option>')
            .val(k)
            .text(node._('detection-filter.time.' + k))
            .appendTo(when);
        });
        when.val(isTime && rule.k === 'outside' ? 'outside' : 'inside');
        const box = $('<div class="detection-filter-field" data-for="time" style="flex:1; min-width:0;"></div>').appendTo(fields);
        const input = $('<input type="text" class="node-input-rule-windows" style="width:100%;">').appendTo(box);
        input.typedInput({ default: 'windows', types: [typedWindows, 'msg', 'flow', 'global', 'env'] });
        input.typedInput('type', isTime && rule.vt && TIME_SOURCES.indexOf(rule.vt) >= 0 ? rule.vt : 'windows');
        input.typedInput('value', isTime ? str(rule.v) : NEW_WINDOWS);
        // fluid: typedInput('width', '100%') would measure the box now, while the other rule types' fields still crowd it
        box.children('.red-ui-typedInput-container').css('width', '100%');

        const editor = $('<div class="detection-filter-windows" style="white-space:normal; margin:6px 0 2px 0;"></div>').appendTo(row);
        const list = $('<div class="detection-filter-window-list"></div>').appendTo(editor);
        const footer = $('<div style="display:flex; align-items:center; gap:8px;"></div>').appendTo(editor);
        $('<button type="button" class="red-ui-button red-ui-button-small detection-filter-add-window"><i class="fa fa-plus"></i> </button>')
          .append(document.createTextNode(node._('detection-filter.button.add-window')))
          .appendTo(footer)
          .on('click', function () {
            const parsed = windowsLib.parseWindows(NEW_WINDOWS);
            if (parsed.ok) addWindow(parsed.windows[0]);
            writeText();
          });

        /** One window's row: a toggle per weekday, from, to, remove. */
        function addWindow(w: EditorTimeWindow) {
          const line = $(
            '<div class="detection-filter-window" style="display:flex; flex-wrap:wrap; align-items:center; gap:6px; margin-bottom:4px;"></div>',
          ).appendTo(list);
          const days = $('<span class="button-group" style="display:inline-flex;"></span>').appendTo(line);
          windowsLib.WEEKDAYS.forEach(function (day, i) {
            const on = (w.days & (1 << i)) !== 0;
            $('<button type="button" class="red-ui-button red-ui-button-small toggle detection-filter-day" style="min-width:26px;"></button>')
              .attr('data-day', String(i))
              .attr('aria-pressed', String(on))
              .toggleClass('selected', on)
              .text(node._('detection-filter.weekday.' + day))
              .attr('title', node._('detection-filter.weekday-name.' + day))
              .appendTo(days)
              .on('click', function () {
                const button = $(this);
                const pressed = !button.hasClass('selected');
                // a window needs a day: the last one pressed stays
                if (!pressed && days.find('.detection-filter-day.selected').length === 1) return;
                button.toggleClass('selected', pressed).attr('aria-pressed', String(pressed));
                writeText();
              });
          });
          // from, to and the remove button stay together on one line when a narrow tray wraps the row
          const times = $('<span style="display:inline-flex; align-items:center; gap:6px; white-space:nowrap;"></span>').appendTo(line);
          $('<span></span>').text(node._('detection-filter.label.from')).appendTo(times);
          $('<input type="time" class="detection-filter-from" style="width:106px;">').val(windowsLib.clockText(w.from)).appendTo(times);
          $('<span></span>').text(node._('detection-filter.label.to')).appendTo(times);
          // the end of the day (24:00) is midnight, 00:00, in a time field
          $('<input type="time" class="detection-filter-to" style="width:106px;">')
            .val(windowsLib.clockText(w.to % windowsLib.DAY_MINUTES))
            .appendTo(times);
          $('<button type="button" class="red-ui-button red-ui-button-small detection-filter-remove-window"><i class="fa fa-times"></i></button>')
            .attr('title', node._('detection-filter.button.remove-window'))
            .appendTo(times)
            .on('click', function () {
              line.remove();
              writeText();
            });
          line.find('input').on('change input', writeText);
        }

        /** The windows of the editor as the text lib reads: `Mon-Fri 22:00-06:00; Sat,Sun 00:00-24:00`. */
        function windowsText(): string {
          const parts: string[] = [];
          list.children('.detection-filter-window').each(function () {
            const line = $(this);
            let days = 0;
            line.find('.detection-filter-day.selected').each(function () {
              days |= 1 << Number($(this).attr('data-day'));
            });
            const from = String(line.find('.detection-filter-from').val() || '');
            let to = String(line.find('.detection-filter-to').val() || '');
            if (to === '00:00') to = '24:00';
            const dayText = windowsLib.daysText(days);
            parts.push((dayText ? dayText + ' ' : '') + from + '-' + to);
          });
          return parts.join('; ');
        }
        let writing = false;
        function writeText() {
          writing = true;
          input.typedInput('value', windowsText());
          writing = false;
          changed();
        }
        /** Redraws the editor from the text, when the text reads as windows (else it stays, and the problem shows). */
        function readText() {
          const parsed = windowsLib.parseWindows(input.typedInput('value'));
          if (!parsed.ok) return;
          list.empty();
          parsed.windows.forEach(addWindow);
          fitRules();
        }
        function showEditor() {
          editor.toggle(String(row.find('select.node-input-rule-type').val()) === 'time' && input.typedInput('type') === 'windows');
        }
        /** Examples of the windows, or of a property or variable name when they are read from msg/flow/global/env. */
        function placeholder() {
          const type = input.typedInput('type');
          const key = type === 'windows' ? 'windows' : type === 'env' ? 'windows-env' : 'windows-property';
          box.find('input.red-ui-typedInput-input').attr('placeholder', node._('detection-filter.placeholder.' + key));
        }
        input.on('change', function () {
          if (!writing && input.typedInput('type') === 'windows') readText();
          placeholder();
          showEditor();
          changed();
        });
        box.on('keyup input', 'input.red-ui-typedInput-input', function () {
          if (input.typedInput('type') === 'windows') readText();
        });
        when.on('change', changed);
        readText();
        return {
          /** Shows or hides the time fields' editor as the row's type changes. */
          sync: function (shown: boolean) {
            if (shown) placeholder();
            editor.toggle(shown && input.typedInput('type') === 'windows');
          },
        };
      }

      const container = $('#node-input-rule-container');
      /** Shows the first problem of the rules under the list, as they are edited, and marks its row. */
      function showProblem() {
        const rows = container.editableList('items');
        const rules: FilterRule[] = [];
        rows.each(function () {
          rules.push(exportRule($(this)));
        });
        const problem = rulesProblem(node, rules);
        $('#detection-filter-rules-problem')
          .text(problem || '')
          .toggle(!!problem);
        // how windows read, while the rules have a time rule
        $('#detection-filter-time-tip').toggle(
          rules.some(function (r) {
            return r.t === 'time';
          }),
        );
        syncPlates(rules);
        fitRules();
        // the field of a row that is wrong is marked, the others cleared
        rows.each(function (i) {
          const bad = !!ruleProblem(rules[i]);
          const row = $(this);
          row.find('.detection-filter-value-field, .red-ui-typedInput-container').removeClass('input-error');
          if (!bad) return;
          const t = rules[i].t;
          if (isList(t) || t === 'time')
            row.find('.detection-filter-field[data-for="' + fieldFor(t) + '"] .red-ui-typedInput-container').addClass('input-error');
          else
            row
              .find('.detection-filter-value-field')
              .filter(function () {
                return $(this).attr('data-for') === fieldFor(t);
              })
              .addClass('input-error');
        });
      }

      container
        .css('min-height', '150px')
        .css('min-width', '450px')
        .editableList({
          addItem: function (row: JQuery, _index: number, data: { rule?: FilterRule }) {
            const rule: FilterRule = data.rule || { t: 'tag', v: '', vt: 'list' };
            row.css({ overflow: 'hidden', whiteSpace: 'nowrap' });
            const line = $('<div style="display:flex; align-items:center; gap:6px;"></div>').appendTo(row);
            const type = $('<select class="node-input-rule-type" style="width:210px; flex:none;"></select>').appendTo(line);
            TYPES.forEach(function (t) {
              $('<option></option>')
                .val(t)
                .text(node._('detection-filter.type.' + t))
                .appendTo(type);
            });
            const fields = $('<div style="flex:1; min-width:0; display:flex; align-items:center; gap:6px;"></div>').appendTo(line);

            const listBox = $('<div class="detection-filter-field" data-for="list" style="flex:1; min-width:0;"></div>').appendTo(fields);
            const list = $('<input type="text" class="node-input-rule-list" style="width:100%;">').appendTo(listBox);
            list.typedInput({ default: 'list', types: [typedList, 'msg', 'flow', 'global'] });
            list.typedInput('type', isList(rule.t) && rule.vt && SOURCES.indexOf(rule.vt) >= 0 ? rule.vt : 'list');
            list.typedInput('value', isList(rule.t) ? str(rule.v) : '');
            // fluid, as the windows field: typedInput('width', '100%') would measure the box now, before the tray has its width
            listBox.children('.red-ui-typedInput-container').css('width', '100%');

            const textBox = $(
              '<input type="text" class="node-input-rule-text detection-filter-field detection-filter-value-field" data-for="text" style="flex:1; min-width:0;">',
            )
              .val(rule.t === 'camera-match' || rule.t === 'name' ? str(rule.v) : '')
              .appendTo(fields);
            $(
              '<input type="number" class="node-input-rule-number detection-filter-field detection-filter-value-field" data-for="number" min="0" max="1" step="0.05" style="width:90px;">',
            )
              .val(rule.t === 'confidence' ? str(rule.v) : '0.8')
              .appendTo(fields);
            $('<span class="form-tips detection-filter-field" data-for="number" style="white-space:normal;"></span>')
              .text(node._('detection-filter.tip.confidence'))
              .appendTo(fields);
            const kind = $(
              '<select class="node-input-rule-kind detection-filter-field detection-filter-value-field" data-for="kind" style="width:120px;"></select>',
            ).appendTo(fields);
            rulesLib.RULE_KINDS.forEach(function (k) {
              $('<option></option>')
                .val(k)
                .text(node._('detection-filter.kind.' + k))
                .appendTo(kind);
            });
            kind.val(rule.t === 'kind' && rulesLib.RULE_KINDS.indexOf(str(rule.v)) >= 0 ? str(rule.v) : rulesLib.RULE_KINDS[0]);
            $(
              '<input type="text" class="node-input-rule-key detection-filter-field detection-filter-value-field" data-for="context" style="width:35%;">',
            )
              .attr('placeholder', node._('detection-filter.placeholder.key'))
              .attr('title', node._('detection-filter.label.key'))
              .val(rule.t === 'context' ? str(rule.k) : '')
              .appendTo(fields);
            $('<span class="detection-filter-field" data-for="context">=</span>').appendTo(fields);
            $('<input type="text" class="node-input-rule-context detection-filter-field" data-for="context" style="flex:1; min-width:0;">')
              .attr('placeholder', node._('detection-filter.placeholder.value'))
              .attr('title', node._('detection-filter.label.value'))
              .val(rule.t === 'context' ? str(rule.v) : '')
              .appendTo(fields);
            $('<span class="form-tips detection-filter-field" data-for="enrolled" style="white-space:normal;"></span>')
              .text(node._('detection-filter.enrolled'))
              .appendTo(fields);
            const time = timeFields(rule, fields, row, showProblem);
            // urgent: a message this rule held for goes on with msg.priority 'urgent'
            const urgent = $('<label class="detection-filter-urgent" style="flex:none; width:auto; margin:0; white-space:nowrap;"></label>')
              .attr('title', node._('detection-filter.tip.urgent'))
              .appendTo(line);
            $('<input type="checkbox" class="node-input-rule-urgent" style="width:auto; margin:0 4px 0 0; vertical-align:middle;">')
              .prop('checked', rule.u === true)
              .appendTo(urgent);
            $('<span></span>').text(node._('detection-filter.label.urgent')).appendTo(urgent);

            /** Examples of the items, or of a property name when the list is read from msg/flow/global. */
            function listPlaceholder() {
              const key = list.typedInput('type') === 'list' ? String(type.val()) : 'property';
              // the typedInput's own text box is the one shown
              listBox.find('input.red-ui-typedInput-input').attr('placeholder', node._('detection-filter.placeholder.' + key));
            }
            function sync() {
              const t = String(type.val());
              const shown = fieldFor(t);
              fields.children('.detection-filter-field').each(function () {
                $(this).toggle($(this).attr('data-for') === shown);
              });
              if (isList(t)) listPlaceholder();
              time.sync(t === 'time');
              if (t === 'camera-match') textBox.attr('placeholder', node._('detection-filter.placeholder.camera-match'));
              if (t === 'name') textBox.attr('placeholder', node._('detection-filter.placeholder.name-part'));
              showProblem();
            }
            type.val(TYPES.indexOf(rule.t) >= 0 ? rule.t : 'tag').on('change', sync);
            list.on('change', function () {
              listPlaceholder();
              showProblem();
            });
            fields.find('input, select').on('change keyup input', showProblem);
            sync();
          },
          removeItem: showProblem,
          sortable: true,
          removable: true,
        });

      (Array.isArray(node.rules) ? node.rules : []).forEach(function (rule) {
        container.editableList('addItem', { rule: rule });
      });
      showProblem();

      /** The plate matching options and the preview: shown while the node has a plate rule. */
      function syncPlates(rules: FilterRule[]) {
        const shown = hasPlateRule(rules);
        $('#detection-filter-plates').toggle(shown);
        const entry = $('#detection-filter-preview-entry');
        if (!shown || String(entry.val() || '').trim() !== '') return;
        // the first plate typed in a rule, as a start
        for (const rule of rules) {
          const first = rule.t === 'plate' && (!rule.vt || rule.vt === 'list') ? items(rule.v)[0] : undefined;
          if (first) {
            entry.val(first);
            previewSoon();
            return;
          }
        }
      }

      /** Shows the classes' problem under them while they are typed (the same words as the node's validator). */
      function showClassesProblem() {
        const problem = Number($('#node-input-plateLookalikes').val()) > 0 ? classesProblem($('#node-input-plateClasses').val()) : null;
        $('#node-input-plateClasses').toggleClass('input-error', !!problem);
      }

      function previewSoon() {
        if (previewTimer) clearTimeout(previewTimer);
        previewTimer = setTimeout(showPreview, 250);
      }
      /** What a difference of an accepted read is, in words: "O read as 0 at 2". */
      function differenceText(d: PreviewDifference): string {
        return node._('detection-filter.preview.' + d.kind, { position: d.position, entry: d.entry, read: d.read });
      }
      /** Why a read made from the entry is not accepted with the options chosen. */
      function refusalText(x: PreviewExample, lookalikes: number, extra: number): string {
        const c = x.change;
        if (c.unrelated) return node._('detection-filter.preview.refused-unrelated');
        if (c.similar1Plate) return node._('detection-filter.preview.refused-similar1Plate');
        if (c.lookalikes > lookalikes)
          return lookalikes === 0
            ? node._('detection-filter.preview.refused-lookalike')
            : node._('detection-filter.preview.refused-lookalikes', { count: c.lookalikes, allowed: lookalikes });
        if (c.extra > extra)
          return extra === 0
            ? node._('detection-filter.preview.refused-extra-none')
            : node._('detection-filter.preview.refused-extra', { count: c.extra, allowed: extra });
        if (c.missing > extra)
          return extra === 0
            ? node._('detection-filter.preview.refused-missing-none')
            : node._('detection-filter.preview.refused-missing', { count: c.missing, allowed: extra });
        return node._('detection-filter.preview.refused');
      }
      /** One example as a line: the read (and similar1Plate), then what it shows. */
      function exampleLine(x: PreviewExample, text: string): JQuery {
        const line = $('<li></li>');
        $('<code></code>').text(x.plate).appendTo(line);
        if (x.similar1Plate) {
          line.append(document.createTextNode(' + similar1Plate '));
          $('<code></code>').text(x.similar1Plate).appendTo(line);
        }
        line.append(document.createTextNode(' ' + text));
        return line;
      }
      /** Asks the runtime what the entry accepts with the options as they are in the dialog (deployed or not), and shows it. */
      function showPreview() {
        const entry = String($('#detection-filter-preview-entry').val() || '').trim();
        if (!entry) {
          preview.text(node._('detection-filter.preview.hint'));
          return;
        }
        const lookalikes = Number($('#node-input-plateLookalikes').val()) || 0;
        const extra = Number($('#node-input-plateExtraMissing').val()) || 0;
        const asked = ++previewAsked;
        $.getJSON('detection-bridge/plates/preview', {
          entry: entry,
          lookalikes: String(lookalikes),
          extraMissing: String(extra),
          classes: String($('#node-input-plateClasses').val() || ''),
          similar1Plate: $('#node-input-plateSimilar').prop('checked') ? 'true' : 'false',
        })
          .done(function (answer: PreviewAnswer) {
            if (asked !== previewAsked) return; // an older answer, after a newer question
            preview.empty();
            if (answer.problem) {
              preview.text(answer.problem);
              return;
            }
            const accepted = $('<ul class="detection-filter-preview-accepted" style="margin:2px 0 6px 18px;"></ul>');
            for (const x of answer.accepted || []) {
              const m = x.match;
              if (!m) continue;
              const why = m.differences.length
                ? m.differences.map(differenceText).join(', ')
                : node._(m.kind === 'similar1Plate' ? 'detection-filter.preview.similar1Plate' : 'detection-filter.preview.exact');
              exampleLine(x, '— ' + why + ' · ' + node._('detection-filter.preview.score', { score: m.score })).appendTo(accepted);
            }
            const refused = $('<ul class="detection-filter-preview-refused" style="margin:2px 0 0 18px;"></ul>');
            for (const x of answer.refused || []) exampleLine(x, '— ' + refusalText(x, lookalikes, extra)).appendTo(refused);
            $('<div></div>')
              .text(node._('detection-filter.preview.accepted', { entry: answer.entry || entry }))
              .appendTo(preview);
            accepted.appendTo(preview);
            $('<div></div>').text(node._('detection-filter.preview.refused-title')).appendTo(preview);
            refused.appendTo(preview);
          })
          .fail(function (xhr: JQuery.jqXHR) {
            if (asked !== previewAsked) return;
            preview.text(node._('detection-filter.preview.failed', { status: xhr.status }));
          });
      }
      $('#detection-filter-preview-entry').on('change keyup input', previewSoon);
      $('#node-input-plateLookalikes, #node-input-plateExtraMissing, #node-input-plateSimilar').on('change', function () {
        showClassesProblem();
        previewSoon();
      });
      $('#node-input-plateClasses').on('change keyup input', function () {
        showClassesProblem();
        previewSoon();
      });
      showClassesProblem();
      previewSoon();

      /** Says which prefix applies: the one typed here, else the chosen bridge's, else none. */
      function showPrefix() {
        const own = prefixOf($('#node-input-tagPrefix').val());
        const bridge = bridgeOf($('#node-input-bridge').val());
        const fromBridge = bridge ? prefixOf(bridge.tagPrefix) : '';
        $('#node-input-tagPrefix').attr(
          'placeholder',
          fromBridge
            ? node._('detection-filter.placeholder.tagPrefix-bridge', { prefix: fromBridge })
            : node._('detection-filter.placeholder.tagPrefix'),
        );
        let tip: string;
        if (own === null) tip = node._('detection-filter.validators.tagPrefix');
        else if (own) tip = node._('detection-filter.tip.tag-prefix-on', { prefix: own });
        else if (fromBridge && bridge)
          tip = node._('detection-filter.tip.tag-prefix-bridge', { prefix: fromBridge, bridge: RED.utils.getNodeLabel(bridge, bridge.id) });
        else if (fromBridge === null) tip = node._('detection-filter.validators.bridge-tag-prefix');
        else tip = node._('detection-filter.tip.tag-prefix-off');
        $('#detection-filter-prefix-tip').text(tip);
      }
      $('#node-input-tagPrefix').on('change keyup input', showPrefix);
      $('#node-input-bridge').on('change', showPrefix);
      showPrefix();

      // The zones this browser knows, offered as the name is typed (Node-RED checks it again at deploy).
      const supported = (Intl as unknown as { supportedValuesOf?: (key: string) => string[] }).supportedValuesOf;
      const zones = $('#detection-filter-zones');
      if (typeof supported === 'function')
        supported('timeZone').forEach(function (zone) {
          $('<option></option>').attr('value', zone).appendTo(zones);
        });
      $('#node-input-timeZone').attr('placeholder', node._('detection-filter.placeholder.timeZone'));
      /** Says which zone time rules use: the event's own, else the one typed here, else Node-RED's. */
      function showZone() {
        const typed = String($('#node-input-timeZone').val() || '').trim();
        const problem = windowsLib.timeZoneProblem(typed);
        let tip: string;
        if (problem) tip = render(problem, node._);
        else if (typed) tip = node._('detection-filter.tip.time-zone-own', { zone: windowsLib.knownTimeZone(typed) || typed });
        else tip = node._('detection-filter.tip.time-zone-nodered');
        $('#detection-filter-zone-tip').text(tip);
      }
      $('#node-input-timeZone').on('change keyup input', showZone);
      showZone();
    },
    oneditsave: function () {
      const rules: FilterRule[] = [];
      $('#node-input-rule-container')
        .editableList('items')
        .each(function () {
          rules.push(exportRule($(this)));
        });
      this.rules = rules;
    },
    oneditresize: function (size) {
      formHeight = size.height;
      fitRules();
    },
  });
})();
