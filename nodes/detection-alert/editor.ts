/**
 * detection-alert: the editor dialog (compiled into dist/nodes/detection-alert/detection-alert.html by scripts/build.js).
 */
(function () {
  /** The fields a template may name, in the order the dialog offers them (lib/alert/template.ts). */
  const FIELDS = DetectionBridgeAlert.ALERT_FIELDS;
  const CROPS = DetectionBridgeEditor.CROPS;
  const validCrops = DetectionBridgeEditor.validCrops;
  /** A Telegram chat: a number (groups and channels negative), or @name. */
  const CHAT_ID = /^(?:-?\d{1,16}|@[A-Za-z0-9_]{4,})$/;

  const TYPE = 'detection-alert';
  const validators = DetectionBridgeEditor.validators(TYPE);
  const check = validators.check;
  const option = DetectionBridgeEditor.option;

  interface AlertNode extends EditorNode {
    sender?: string;
    tagPrefix?: string;
  }

  function str(v: unknown): string {
    return v === undefined || v === null ? '' : String(v);
  }
  /** The `{names}` of a template that are no field, each once (lib/alert/template.ts). */
  function unknownFields(v: unknown): string[] {
    return DetectionBridgeAlert.unknownFields(str(v));
  }
  // Two parameters: Node-RED shows the reason a validator returns only from one declared with two.
  function templateCheck(this: AlertNode, v: unknown, _opt?: unknown): EditorVerdict {
    const unknown = unknownFields(v);
    return check(this, unknown.length === 0, 'unknown-field', {
      fields: unknown
        .map(function (f) {
          return '{' + f + '}';
        })
        .join(', '),
    });
  }
  /** A typed prefix as the runtime uses it: '' for none; null when not valid. */
  const prefixOf = DetectionBridgeEditor.tagPrefixOf;
  /** Whether `node`'s edit dialog is open (its fields then hold the values being edited, not yet saved on the node). */
  function inDialog(node: AlertNode): boolean {
    return DetectionBridgeEditor.inDialog(node, '#node-input-sender');
  }
  /** The sender as the open dialog shows it, else as saved: the chat id and the Pushover keys are marked as soon as their sender is chosen. */
  function senderOf(node: AlertNode): string {
    return str(inDialog(node) ? $('#node-input-sender').val() : node.sender) || 'email';
  }
  /** Whether Pushover key `name` is set: in the open dialog its field (a stored one shows as __PWRD__), else what the editor
   *  knows (after a reload nothing of a deployed node's credentials: taken as set; a new or pasted node has none until entered). */
  function hasKey(node: AlertNode, name: string): boolean {
    if (inDialog(node) && $('#node-input-' + name).length) return $('#node-input-' + name).val() !== '';
    const c = node.credentials;
    if (!c) return !node.changed;
    return !!(c[name] || c['has_' + name]);
  }
  const senderOption = option<AlertNode>(TYPE, 'sender');

  DetectionBridgeEditor.define<AlertNode>('detection-alert', {
    icon: 'detection-alert.svg',
    defaults: {
      property: { value: 'payload', validate: validators.typed('propertyType', 'property', true) },
      propertyType: { value: 'msg' },
      // Node-RED 4 counts a credential's own validator in the open dialog only: the node is invalid without its Pushover keys from here
      sender: {
        value: senderOption.value,
        validate: function (v, opt) {
          const chosen = senderOption.validate ? senderOption.validate.call(this, v, opt) : true;
          if (chosen !== true || str(v) !== 'pushover') return chosen;
          return check(this, hasKey(this, 'pushoverToken') && hasKey(this, 'pushoverUser'), 'pushover');
        },
      },
      to: { value: '' },
      from: { value: '' },
      chatId: {
        value: '',
        validate: function (v, _opt) {
          if (senderOf(this) !== 'telegram') return true;
          return check(this, CHAT_ID.test(str(v).trim()), 'chatId');
        },
      },
      subject: { value: '', validate: templateCheck },
      body: { value: '', validate: templateCheck },
      picture: option(TYPE, 'picture'),
      crops: {
        value: CROPS.join(','),
        validate: function (v, _opt) {
          return check(this, validCrops(v), 'crops');
        },
      },
      faceImage: option(TYPE, 'faceImage'),
      faceFallback: option(TYPE, 'faceFallback'),
      tagPrefix: {
        value: '',
        validate: function (v, _opt) {
          return check(this, prefixOf(v) !== null, 'tagPrefix');
        },
      },
      bridge: {
        value: '',
        type: 'events-bridge',
        required: false,
        // Only its tag prefix is used, and only when the node has none of its own, as at run time.
        validate: function (v, _opt) {
          if (!v || v === '_ADD_' || prefixOf(this.tagPrefix)) return true;
          const chosen = RED.nodes.node(v);
          if (!chosen) return check(this, false, 'bridge-gone');
          return check(this, prefixOf(chosen.tagPrefix) !== null, 'bridge-tag-prefix');
        },
      },
    },
    credentials: {
      pushoverToken: {
        type: 'password',
        validate: function (v, _opt) {
          return (
            senderOf(this) !== 'pushover' || check(this, str(v) !== '' || !!(this.credentials && this.credentials.has_pushoverToken), 'pushover')
          );
        },
      },
      pushoverUser: {
        type: 'password',
        validate: function (v, _opt) {
          return senderOf(this) !== 'pushover' || check(this, str(v) !== '' || !!(this.credentials && this.credentials.has_pushoverUser), 'pushover');
        },
      },
    },
    inputs: 1,
    outputs: 1,
    property: ['msg', 'flow', 'global', 'jsonata', 'env'],
    oneditprepare: function () {
      const node = this;

      // One row per sender's own options, and the tip saying what to wire it to.
      function syncSender() {
        const sender = String($('#node-input-sender').val() || 'email');
        $('.detection-alert-email').toggle(sender === 'email');
        $('.detection-alert-telegram').toggle(sender === 'telegram');
        $('.detection-alert-pushover').toggle(sender === 'pushover');
        $('#detection-alert-sender-tip').text(node._('detection-alert.tip.sender.' + sender));
      }
      $('#node-input-sender').on('change', syncSender);
      syncSender();

      // The defaults shown greyed in the empty templates: a plate's subject (a face's in the tip), the body.
      $('#node-input-subject').attr(
        'placeholder',
        node._('detection-alert.default.subject-lpr') + '  |  ' + node._('detection-alert.default.subject-face'),
      );
      $('#node-input-body').attr('placeholder', node._('detection-alert.default.body'));

      // "Insert field": `{field}` at the cursor of the template beside it.
      $('.detection-alert-insert').each(function () {
        const select = $(this);
        const target = $('#' + String(select.data('target')));
        $('<option value="">').text(node._('detection-alert.field.choose')).appendTo(select);
        FIELDS.forEach(function (field) {
          $('<option>')
            .val(field)
            .text('{' + field + '} ' + node._('detection-alert.field.' + field))
            .appendTo(select);
        });
        select.on('change', function () {
          const field = String(select.val() || '');
          if (!field) return;
          const input = target[0] as HTMLInputElement | HTMLTextAreaElement;
          const text = String(target.val() || '');
          const start = typeof input.selectionStart === 'number' ? input.selectionStart : text.length;
          const end = typeof input.selectionEnd === 'number' ? input.selectionEnd : start;
          const placeholder = '{' + field + '}';
          target.val(text.slice(0, start) + placeholder + text.slice(end)).trigger('change');
          input.focus();
          input.setSelectionRange(start + placeholder.length, start + placeholder.length);
          select.val('');
        });
      });

      function syncPicture() {
        $('.detection-alert-picture-options').toggle($('#node-input-picture').is(':checked'));
      }
      $('#node-input-picture').on('change', syncPicture);
      syncPicture();
    },
  });
})();
