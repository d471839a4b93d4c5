/**
 * platform-request: the editor dialog (compiled into dist/nodes/platform-request/platform-request.html by scripts/build.js).
 */
(function () {
  /** An operation as GET platform-server/<id>/operations lists it (OperationIndex.summaries, lib/openapi/operations.ts). */
  interface Operation {
    id: string;
    method: string;
    path: string;
    tag: string;
    summary?: string;
    parameters: Array<{ name: string; in: string; required?: boolean; type?: string }>;
    body?: { type?: string; fields?: Array<{ name: string; required?: boolean; type?: string }> };
  }
  /** A parameter row as the node saves it (and, while shown, what the operation says of it). */
  interface ParamRow {
    name: string;
    in: string;
    value: string;
    type: string;
    required?: boolean;
    schemaType?: string;
  }
  /** A plugin as GET platform-server/<id>/plugins lists it. */
  interface Plugin {
    id: string;
    name?: string;
    type?: string;
  }
  interface Plugins {
    plugins?: Plugin[];
    pos?: Plugin[];
  }
  interface PlatformRequestNode extends EditorNode {
    method?: string;
    methodType?: string;
    path?: string;
    pathType?: string;
    params?: ParamRow[];
  }
  /** The Method TypedInput's own type: a method fixed in the node (runtime: FIXED_METHOD). */
  const FIXED = 'method';
  const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
  const PROPERTY_TYPES = DetectionBridgeEditor.PROPERTY_TYPES;
  const validators = DetectionBridgeEditor.validators('platform-request');
  const check = validators.check;
  /** The platform server chosen: needed. */
  const serverCheck = validators.config('server');
  const pathProblem = DetectionBridgeEditor.apiPathProblem;
  /** A TypedInput's type in the open dialog, else as saved. */
  function typeOf(node: EditorNode, field: string, fixed: string): string {
    return String(($('#node-input-' + field).length ? $('#node-input-' + field).val() : node[field]) || fixed);
  }
  const propertyCheck = validators.property;
  /** The open dialog's parameter rows, read when it is saved. */
  let readOpenParams: (() => ParamRow[]) | null = null;
  const PARAM_TYPES: Array<'str' | 'num' | 'msg' | 'flow' | 'global' | 'env' | 'jsonata'> = ['str', 'num', 'msg', 'flow', 'global', 'env', 'jsonata'];
  /** A body's property type, short: arrays as [ … ]. */
  function fieldType(type: string | undefined): string {
    return type === 'array' ? '[ … ]' : type === 'object' ? '{ … }' : type || '…';
  }
  /** Where a value comes from, as the label shows it: GET, msg.method, /api/v2/…, flow.path. */
  function shown(type: string, value: unknown, fixed: string): string {
    return type === fixed ? String(value) : type + '.' + value;
  }
  /** The module whose instance a path parameter names: the segment before `plugins` in
   *  `/api/v2/<module>/plugins/{name}/…` (e.g. pos for pos_id), else null. */
  function instanceModule(pathText: string, name: string): string | null {
    const segs = String(pathText || '').split('/');
    for (let i = 2; i < segs.length; i++) {
      if (segs[i] === '{' + name + '}' && segs[i - 1].toLowerCase() === 'plugins' && /^[^{}]+$/.test(segs[i - 2])) return segs[i - 2];
    }
    return null;
  }
  /** Lower-case words of a type or name: PosPlugin → pos plugin (as lib/platform/plugins.ts reads them). */
  function words(text: unknown): string[] {
    return String(text || '')
      .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
      .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter(Boolean);
  }
  /** The installed plugins of a module: the server's own POS reading for pos, else type or name naming the module. */
  function moduleInstances(data: Plugins, module: string): Plugin[] {
    const m = module.toLowerCase();
    if (m === 'pos') return data.pos || [];
    return (data.plugins || []).filter(function (p) {
      return String(p.type || '').toLowerCase() === m || words(p.type).indexOf(m) !== -1 || words(p.name).indexOf(m) !== -1;
    });
  }

  DetectionBridgeEditor.define<PlatformRequestNode>('platform-request', {
    icon: 'platform-request.svg',
    color: '#A6BBCF',
    defaults: {
      server: { value: '', type: 'platform-server', validate: serverCheck },
      method: {
        value: 'GET',
        validate: function (v, _opt) {
          const type = typeOf(this, 'methodType', FIXED);
          return type === FIXED ? check(this, METHODS.indexOf(String(v)) !== -1, 'method-choice') : propertyCheck(this, v, type, 'method');
        },
      },
      methodType: { value: FIXED },
      path: {
        value: '/api/v2/portal/installed-plugins',
        validate: function (v, _opt) {
          const type = typeOf(this, 'pathType', 'str');
          if (type !== 'str') return propertyCheck(this, v, type, 'path-property');
          const problem = pathProblem(v);
          return check(this, !problem, problem || '');
        },
      },
      pathType: { value: 'str' },
      // The operation picked from the server's OpenAPI file: informative, the runtime reads method and path.
      operationId: { value: '' },
      params: { value: [] },
    },
    inputs: 1,
    outputs: 1,
    label: function () {
      return shown(this.methodType || FIXED, this.method, FIXED) + ' ' + shown(this.pathType || 'str', this.path, 'str');
    },
    inputLabels: function () {
      return this._('platform-request.inputs.request');
    },
    outputLabels: function () {
      return this._('platform-request.outputs.answer');
    },
    oneditprepare: function () {
      const node = this;
      const method = $('#node-input-method');
      const path = $('#node-input-path');
      method.typedInput({
        default: FIXED,
        types: [{ value: FIXED, label: node._('platform-request.method.fixed'), options: METHODS }, ...PROPERTY_TYPES],
        typeField: '#node-input-methodType',
      });
      path.typedInput({ default: 'str', types: ['str', ...PROPERTY_TYPES], typeField: '#node-input-pathType' });
      const methodDefault = DetectionBridgeEditor.msgByDefault(method, 'method');
      const pathDefault = DetectionBridgeEditor.msgByDefault(path, 'path');
      // What becomes of msg.payload with the method chosen: sent as the body, or not sent.
      function showMethod() {
        methodDefault();
        const type = method.typedInput('type');
        const value = method.typedInput('value');
        const tip =
          type !== FIXED
            ? node._('platform-request.tip.method-typed', { property: shown(type, value, FIXED) })
            : value === 'GET' || value === 'DELETE'
              ? node._('platform-request.tip.method-no-body')
              : node._('platform-request.tip.method-body');
        $('#platform-request-method-tip').text(tip);
      }
      method.on('change', showMethod);
      showMethod();
      path.on('change', function () {
        pathDefault();
        // A path pasted with spaces around it is read without them (the runtime trims it too).
        const v = path.typedInput('value');
        if (path.typedInput('type') === 'str' && typeof v === 'string' && v.trim() !== v) path.typedInput('value', v.trim());
        forgetOperation();
      });
      method.on('change', forgetOperation);

      // The operation picker: the deployed server's OpenAPI file, listed once per dialog opening.
      const list = $('#platform-request-ops');
      let rows: Array<{ el: HTMLElement; tag: string; text: string }> = [];
      let operations: Record<string, Operation> = {};
      let chosen: Operation | null = null;
      let paramsShown: ParamRow[] = (node.params || []).slice();
      function setTip(text: string) {
        $('#platform-request-op-tip').text(text);
      }
      /** Method or path changed by hand away from the chosen operation: it is no longer chosen. */
      function forgetOperation() {
        if (!chosen) return;
        if (
          method.typedInput('type') === FIXED &&
          method.typedInput('value') === chosen.method &&
          path.typedInput('type') === 'str' &&
          path.typedInput('value') === chosen.path
        )
          return;
        chosen = null;
        showChosen();
      }
      function showChosen() {
        $('#node-input-operationId').val(chosen ? chosen.id : '');
        list.find('.platform-request-op-chosen').removeClass('platform-request-op-chosen');
        const body = $('#platform-request-body').empty();
        $('.platform-request-body-row').toggle(!!(chosen && chosen.body));
        if (!chosen) return;
        list.find('[data-id="' + CSS.escape(chosen.id) + '"]').addClass('platform-request-op-chosen');
        if (!chosen.body) return;
        const fields = chosen.body.fields;
        const type = chosen.body.type;
        const text = fields
          ? fields
              .map(function (f) {
                return f.name + (f.required ? '*' : '') + ': ' + fieldType(f.type);
              })
              .join(', ')
          : fieldType(type);
        body.text(type === 'array' && fields ? '[ { ' + text + ' } ]' : fields ? '{ ' + text + ' }' : text);
      }
      function pick(op: Operation) {
        method.typedInput('type', FIXED);
        method.typedInput('value', op.method);
        path.typedInput('type', 'str');
        path.typedInput('value', op.path);
        chosen = op;
        // Rows for the operation's parameters, keeping values already set for the same name.
        const old: Record<string, ParamRow> = {};
        readParams().forEach(function (p) {
          old[p.in + ':' + p.name] = p;
        });
        paramsShown = op.parameters.map(function (p) {
          const had = old[p.in + ':' + p.name];
          return { name: p.name, in: p.in, value: had ? had.value : '', type: had ? had.type : 'str', required: p.required, schemaType: p.type };
        });
        showParams();
        showChosen();
      }
      list.on('click', '.platform-request-op', function (e) {
        e.preventDefault();
        const op = operations[String($(this).attr('data-id'))];
        if (op) pick(op);
      });
      $('#platform-request-op-search').on('keyup change input', function () {
        filter($(this).val());
      });
      function filter(text: unknown) {
        const words = String(text || '')
          .toLowerCase()
          .split(/\s+/)
          .filter(Boolean);
        const seen: Record<string, boolean> = {};
        rows.forEach(function (r) {
          const show = words.every(function (w) {
            return r.text.indexOf(w) !== -1;
          });
          r.el.style.display = show ? '' : 'none';
          if (show) seen[r.tag] = true;
        });
        list.children('.platform-request-op-module').each(function () {
          this.style.display = seen[String($(this).attr('data-tag'))] ? '' : 'none';
        });
      }
      let opsAsked: object | null = null;
      function loadOperations() {
        const serverId = String($('#node-input-server').val() || '');
        opsAsked = null;
        list.empty().hide();
        rows = [];
        operations = {};
        $('.platform-request-op-search-row').hide();
        if (!serverId || serverId === '_ADD_') {
          setTip('');
          return;
        }
        const server = RED.nodes.node(serverId);
        if (server && server.changed) {
          setTip(node._('platform-request.tip.ops-not-deployed'));
          return;
        }
        setTip(node._('platform-request.tip.ops-loading'));
        const started = Date.now();
        // The server field can change twice while the list is asked for: only the last answer counts.
        const asked = (opsAsked = {});
        $.getJSON('platform-server/' + encodeURIComponent(serverId) + '/operations')
          .done(function (data: { operations?: Operation[]; message?: string; release?: string }) {
            if (asked !== opsAsked) return;
            // a server without an OpenAPI file answers 200 with the reason: the usual case, not an error
            if (!data.operations) {
              setTip(node._('platform-request.tip.ops-none', { reason: data.message || '' }));
              return;
            }
            const groups: Record<string, Operation[]> = {};
            (data.operations || []).forEach(function (op) {
              (groups[op.tag] = groups[op.tag] || []).push(op);
            });
            // One string of HTML, then one insertion: fast for hundreds of operations.
            const html: string[] = [];
            Object.keys(groups)
              .sort()
              .forEach(function (tag) {
                html.push(
                  '<div class="platform-request-op-module" data-tag="' + RED.utils.sanitize(tag) + '">' + RED.utils.sanitize(tag || '—') + '</div>',
                );
                groups[tag].forEach(function (op) {
                  operations[op.id] = op;
                  html.push(
                    '<a href="#" class="platform-request-op" data-id="' +
                      RED.utils.sanitize(op.id) +
                      '" data-tag="' +
                      RED.utils.sanitize(tag) +
                      '">' +
                      '<span class="platform-request-op-method">' +
                      RED.utils.sanitize(op.method) +
                      '</span> <code>' +
                      RED.utils.sanitize(op.path) +
                      '</code> <span class="platform-request-op-summary">' +
                      RED.utils.sanitize(op.summary || op.id) +
                      '</span></a>',
                  );
                });
              });
            list[0].innerHTML = html.join('');
            list.children('.platform-request-op').each(function () {
              const op = operations[String(this.getAttribute('data-id'))];
              rows.push({ el: this, tag: op.tag, text: (op.path + ' ' + op.summary + ' ' + op.id + ' ' + op.method).toLowerCase() });
            });
            list.show();
            $('.platform-request-op-search-row').show();
            filter($('#platform-request-op-search').val());
            const saved = operations[String($('#node-input-operationId').val())];
            if (saved && !chosen) {
              chosen = saved;
              showChosen();
              forgetOperation();
            }
            setTip(node._('platform-request.tip.ops', { count: rows.length, release: data.release }));
            // For the browser test's measurement: list received and shown.
            list.attr('data-ms', String(Date.now() - started));
          })
          .fail(function (xhr) {
            if (asked !== opsAsked) return;
            const reason = (xhr.responseJSON && xhr.responseJSON.message) || xhr.statusText || '';
            setTip(node._('platform-request.tip.ops-none', { reason: reason }));
          });
      }
      $('#node-input-server').on('change', loadOperations);

      // Module instances for a path parameter that names one, from the deployed server's
      // installed plugins; without the list the row stays free text with a tip why.
      let instances: { data: Plugins | null; tip: string } = { data: null, tip: '' };
      function loadInstances() {
        const serverId = String($('#node-input-server').val() || '');
        instances = { data: null, tip: '' };
        const server = serverId && serverId !== '_ADD_' ? RED.nodes.node(serverId) : null;
        if (!serverId || serverId === '_ADD_') {
          showInstances();
          return;
        }
        if (server && server.changed) {
          instances.tip = node._('platform-request.tip.instances-not-deployed');
          showInstances();
          return;
        }
        instances.tip = node._('platform-request.tip.instances-loading');
        showInstances();
        const asked = instances;
        $.getJSON('platform-server/' + encodeURIComponent(serverId) + '/plugins')
          .done(function (data: Plugins | null) {
            if (asked !== instances) return;
            instances = { data: data || {}, tip: '' };
            showInstances();
          })
          .fail(function (xhr) {
            if (asked !== instances) return;
            const reason = (xhr.responseJSON && xhr.responseJSON.message) || xhr.statusText || '';
            instances = { data: null, tip: node._('platform-request.tip.instances-none', { reason: reason }) };
            showInstances();
          });
      }
      $('#node-input-server').on('change', loadInstances);
      /** Fills each instance row's list and tip; both only for a text value. */
      function showInstances() {
        $('#platform-request-params .platform-request-param-value[data-module]').each(function () {
          const input = $(this);
          const module = String(input.attr('data-module'));
          const extra = $('#platform-request-params .platform-request-param-instances[data-index="' + input.attr('data-index') + '"]');
          const select = extra.find('select').empty();
          let tip = instances.tip;
          let list: Plugin[] = [];
          if (instances.data) {
            list = moduleInstances(instances.data, module);
            const all = instances.data.plugins || [];
            // An answer whose entries say nothing of their module: offer them all rather than none.
            if (list.length === 0 && all.length > 0) {
              list = all;
              tip = node._('platform-request.tip.instances-all', { module: module, count: all.length });
            } else tip = node._('platform-request.tip.instances', { module: module, count: list.length });
          }
          $('<option value=""></option>').text(node._('platform-request.param.instance')).appendTo(select);
          list.forEach(function (p) {
            $('<option></option>')
              .val(p.id)
              .text(p.name && p.name !== p.id ? p.name + ' (' + p.id + ')' : p.id)
              .appendTo(select);
          });
          const text = input.typedInput('type') === 'str';
          select.val(
            text &&
              list.some(function (p) {
                return p.id === input.typedInput('value');
              })
              ? input.typedInput('value')
              : '',
          );
          select.toggle(text && list.length > 0);
          extra
            .find('.form-tips')
            .text(tip)
            .toggle(text && tip !== '');
          extra.toggle(text && (list.length > 0 || tip !== ''));
        });
      }

      // Parameter rows: one TypedInput each.
      function showParams() {
        const box = $('#platform-request-params').empty();
        $('.platform-request-params-row').toggle(paramsShown.length > 0);
        paramsShown.forEach(function (p: ParamRow, i: number) {
          const row = $('<div class="form-row platform-request-param"></div>').appendTo(box);
          $('<label></label>')
            .attr('title', p.in)
            .text(p.name + (p.required ? '*' : ''))
            .appendTo(row)
            .append($('<span class="platform-request-param-in"></span>').text(' ' + node._('platform-request.param.' + p.in)));
          // Empty is allowed: a path row then reads msg.<name>, a query row is not sent (the runtime's rule).
          const input = $('<input type="text" class="platform-request-param-value" style="width:60%;">')
            .attr('data-index', String(i))
            .attr('data-name', p.name)
            .attr('data-in', p.in)
            .attr(
              'placeholder',
              p.in === 'path' ? node._('platform-request.param.from-msg', { name: p.name }) : node._('platform-request.param.not-sent'),
            )
            .appendTo(row);
          input.typedInput({ default: 'str', types: PARAM_TYPES });
          input.typedInput('type', p.type || 'str');
          input.typedInput('value', p.value || '');
          const module = p.in === 'path' && path.typedInput('type') === 'str' ? instanceModule(path.typedInput('value'), p.name) : null;
          if (!module) return;
          input.attr('data-module', module);
          const extra = $('<div class="form-row platform-request-param-instances" style="display:none;"><label>&nbsp;</label></div>')
            .attr('data-index', String(i))
            .appendTo(box);
          $('<select style="width:60%; display:none;"></select>')
            .attr('aria-label', node._('platform-request.param.instance'))
            .appendTo(extra)
            .on('change', function () {
              const id = String($(this).val() || '');
              if (id) {
                input.typedInput('type', 'str');
                input.typedInput('value', id);
              }
            });
          $('<span class="form-tips" style="display:block; width:60%; margin-left:100px;"></span>').appendTo(extra);
          input.on('change', showInstances);
        });
        showInstances();
      }
      function readParams(): ParamRow[] {
        return $('#platform-request-params .platform-request-param-value')
          .map(function (): ParamRow {
            const input = $(this);
            return {
              name: String(input.attr('data-name')),
              in: String(input.attr('data-in')),
              value: input.typedInput('value'),
              type: input.typedInput('type'),
            };
          })
          .get();
      }
      readOpenParams = readParams;
      showParams();
      showChosen();
    },
    oneditsave: function () {
      this.params = readOpenParams ? readOpenParams() : this.params || [];
      readOpenParams = null;
    },
    oneditcancel: function () {
      readOpenParams = null;
    },
  });
})();
