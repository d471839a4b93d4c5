/**
 * detection-switch: the editor dialog (compiled into dist/nodes/detection-switch/detection-switch.html by scripts/build.js).
 */
(function () {
  const typedCheck = DetectionBridgeEditor.validators('detection-switch').typed;

  DetectionBridgeEditor.define('detection-switch', {
    icon: 'detection-switch.svg',
    defaults: {
      property: { value: 'payload', validate: typedCheck('propertyType', 'property', true) },
      propertyType: { value: 'msg' },
      outputs: { value: 3 },
    },
    inputs: 1,
    outputs: 3,
    outputLabels: function (index: number) {
      return this._(['detection-switch.outputs.face', 'detection-switch.outputs.plate', 'detection-switch.outputs.other'][index]);
    },
    property: ['msg', 'flow', 'global', 'jsonata', 'env'],
    outputsBy: { field: 'otherOutput', count: (other: boolean) => (other ? 3 : 2) },
  });
})();
