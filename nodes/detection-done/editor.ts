/**
 * detection-done: the editor dialog (compiled into dist/nodes/detection-done/detection-done.html by scripts/build.js).
 */
(function () {
  DetectionBridgeEditor.define('detection-done', {
    icon: 'detection-done.svg',
    defaults: { outputs: { value: 0 } },
    inputs: 1,
    align: 'right',
    inputLabels: function () {
      return this._('detection-done.inputs.events');
    },
    outputLabels: function () {
      return this._('detection-done.outputs.events');
    },
    // the output is there only while events are passed on
    outputsBy: { field: 'passOn', count: (passOn: boolean) => (passOn ? 1 : 0) },
    oneditprepare: function () {
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
