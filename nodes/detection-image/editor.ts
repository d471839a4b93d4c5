/**
 * detection-image: the editor dialog (compiled into dist/nodes/detection-image/detection-image.html by scripts/build.js).
 */
(function () {
  const CROPS = DetectionBridgeEditor.CROPS;
  const validCrops = DetectionBridgeEditor.validCrops;
  const CROP_HINTS: Record<string, string> = {
    Close: 'detection-image.crop.Close',
    Medium: 'detection-image.crop.Medium',
    Car: 'detection-image.crop.Car',
    FullFrame: 'detection-image.crop.FullFrame',
    Other: 'detection-image.crop.Other',
  };

  const validators = DetectionBridgeEditor.validators('detection-image');
  const check = validators.check;
  const typedCheck = validators.typed;

  DetectionBridgeEditor.define('detection-image', {
    icon: 'detection-image.svg',
    defaults: {
      property: { value: 'payload', validate: typedCheck('propertyType', 'property', true) },
      propertyType: { value: 'msg' },
      crops: {
        value: CROPS.join(','),
        validate: function (v, _opt) {
          return check(this, validCrops(v), 'crops');
        },
      },
      outputProperty: {
        value: 'image',
        validate: function (v, _opt) {
          if (typeof v !== 'string' || v.trim() === '') return check(this, false, 'outputProperty-empty');
          return check(this, RED.utils.validatePropertyExpression(v) === true, 'outputProperty');
        },
      },
      outputs: { value: 2 },
    },
    inputs: 1,
    outputs: 2,
    outputLabels: function (index: number) {
      return this._(index === 0 ? 'detection-image.outputs.image' : 'detection-image.outputs.none');
    },
    property: ['msg', 'flow', 'global', 'jsonata', 'env'],
    // no image as an error: no second output
    outputsBy: { field: 'noImage', count: (noImage: string) => (noImage === 'error' ? 1 : 2) },
    oneditprepare: function () {
      const node = this;
      $('#node-input-outputProperty').typedInput({ default: 'msg', types: ['msg'] });

      // Crop order: every known crop, ticked ones first in the saved order.
      const list = $('#node-input-crops-list');
      function syncCrops() {
        const names: string[] = [];
        list.editableList('items').each(function () {
          if ($(this).find('input[type=checkbox]').prop('checked')) names.push(String($(this).data('crop')));
        });
        $('#node-input-crops').val(names.join(',')).trigger('change');
        $('#detection-image-crops-empty').toggle(names.length === 0);
      }
      list.css('min-height', '0').editableList({
        addButton: false,
        removable: false,
        sortable: true,
        height: 'auto',
        addItem: function (row: JQuery, _index: number, data: { name: string; on: boolean }) {
          row.data('crop', data.name);
          $('<input type="checkbox" style="width:auto; margin:0 8px 0 0; vertical-align:baseline;">')
            .prop('checked', data.on)
            .on('change', syncCrops)
            .appendTo(row);
          $('<code>').text(data.name).appendTo(row);
          $('<span style="margin-left:8px;">').text(node._(CROP_HINTS[data.name])).appendTo(row);
        },
        sortItems: syncCrops,
      });
      const saved = validCrops(node.crops)
        ? String(node.crops)
            .split(',')
            .map(function (s) {
              return s.trim();
            })
        : CROPS.slice();
      saved.forEach(function (name) {
        list.editableList('addItem', { name: name, on: true });
      });
      CROPS.forEach(function (name) {
        if (saved.indexOf(name) < 0) list.editableList('addItem', { name: name, on: false });
      });
      syncCrops();
    },
  });
})();
