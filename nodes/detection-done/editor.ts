/**
 * detection-done: the editor dialog (compiled into dist/nodes/detection-done/detection-done.html by scripts/build.js).
 */
(function () {
  const option = DetectionBridgeEditor.option;
  RED.nodes.registerType('detection-done', {
    category: 'detection bridge',
    color: '#87C4E6',
    defaults: {
      name: { value: '' },
      passOn: option('detection-done', 'passOn'),
      outcome: option('detection-done', 'outcome'),
      outputs: { value: 0 },
      configVersion: { value: DetectionBridgeConfig.currentVersion('detection-done') },
    },
    inputs: 1,
    outputs: 0,
    icon: 'detection-done.svg',
    align: 'right',
    label: function () {
      return this.name || this._('detection-done.paletteLabel');
    },
    labelStyle: function () {
      return this.name ? 'node_label_italic' : '';
    },
    paletteLabel: function () {
      return this._('detection-done.paletteLabel');
    },
    inputLabels: function () {
      return this._('detection-done.inputs.events');
    },
    outputLabels: function () {
      return this._('detection-done.outputs.events');
    },
    oneditprepare: function () {
      function syncOutputs() {
        $('#node-input-outputs').val($('#node-input-passOn').prop('checked') ? '1' : '0');
      }
      $('#node-input-passOn').on('change', syncOutputs);
      syncOutputs();
      // a node saved before the option: finished, as the runtime takes it
      if (!this.outcome) $('#node-input-outcome').val('finished');
      function showOutcomeTip() {
        $('#detection-done-failed-tip').toggle($('#node-input-outcome').val() === 'failed');
      }
      $('#node-input-outcome').on('change', showOutcomeTip);
      showOutcomeTip();
    },
  });
})();
