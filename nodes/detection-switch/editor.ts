/**
 * detection-switch: the editor dialog (compiled into dist/nodes/detection-switch/detection-switch.html by scripts/build.js).
 */
(function () {
  const typedCheck = DetectionBridgeEditor.validators('detection-switch').typed;
  const option = DetectionBridgeEditor.option;

  RED.nodes.registerType('detection-switch', {
    category: 'detection bridge',
    color: '#87C4E6',
    defaults: {
      name: { value: '' },
      property: { value: 'payload', validate: typedCheck('propertyType', 'property', true) },
      propertyType: { value: 'msg' },
      otherOutput: option('detection-switch', 'otherOutput'),
      outputs: { value: 3 },
      configVersion: { value: DetectionBridgeConfig.currentVersion('detection-switch') },
    },
    inputs: 1,
    outputs: 3,
    icon: 'detection-switch.svg',
    label: function () {
      return this.name || this._('detection-switch.paletteLabel');
    },
    labelStyle: function () {
      return this.name ? 'node_label_italic' : '';
    },
    paletteLabel: function () {
      return this._('detection-switch.paletteLabel');
    },
    outputLabels: function (index: number) {
      return this._(['detection-switch.outputs.face', 'detection-switch.outputs.plate', 'detection-switch.outputs.other'][index]);
    },
    oneditprepare: function () {
      $('#node-input-property').typedInput({
        default: 'msg',
        types: ['msg', 'flow', 'global', 'jsonata', 'env'],
        typeField: '#node-input-propertyType',
      });
      function syncOutputs() {
        $('#node-input-outputs').val($('#node-input-otherOutput').prop('checked') ? '3' : '2');
      }
      $('#node-input-otherOutput').on('change', syncOutputs);
      syncOutputs();
    },
  });
})();
