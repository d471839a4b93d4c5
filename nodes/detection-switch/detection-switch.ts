/**
 * detection-switch: routes messages on the event's `publishType`, face to
 * output 1, plate to output 2, anything else to output 3 (or dropped).
 * A thin adapter: the routing is lib/events/publish-route.ts.
 */
import type { NodeAPI, NodeDef, NodeMessage } from 'node-red';
import { routeOf, routeSlots, type Route } from '../../lib/events';
import { nodeOptions, type SavedOptions } from '../../lib/config';
import { coded, nodeText, statusText } from '../shared/i18n';
import { failConfig, throttledStatus } from '../shared/status';
import { propertyReader, type PropertyReader, type PropertyUtil } from '../shared/typed-property';
import { registerNode } from '../shared/register';

interface DetectionSwitchDef extends NodeDef, SavedOptions<'detection-switch'> {
  property: string;
  propertyType: string;
}

export = function register(RED: NodeAPI): void {
  registerNode<DetectionSwitchDef>(RED, 'detection-switch', (node, config) => {
    const t = nodeText(RED, 'detection-switch');
    const s = statusText(RED, 'detection-switch');

    const property = config.property || 'payload';
    const propertyType = config.propertyType || 'msg';
    // Older or hand-written flows without the option keep the third output.
    const { otherOutput } = nodeOptions('detection-switch', config);

    let read: PropertyReader;
    try {
      read = propertyReader(RED.util as unknown as PropertyUtil, node, property, propertyType);
    } catch (err) {
      failConfig(
        node,
        s('status.config'),
        t('errors.property', { property: `${propertyType}:${property}`, message: (err as Error).message }),
        'CONFIG',
      );
      return;
    }

    const counts: Record<Route | 'dropped', number> = { face: 0, plate: 0, other: 0, dropped: 0 };
    const showStatus = throttledStatus(node, () => ({
      fill: 'green',
      shape: 'dot',
      text: s(otherOutput ? 'status.counts' : 'status.counts-dropped', counts),
    }));

    node.on('input', (msg: NodeMessage, send: (msg: Array<NodeMessage | null>) => void, done: (err?: Error) => void) => {
      read(msg, (err, value) => {
        if (err) {
          done(coded(t('errors.read', { property: `${propertyType}:${property}`, message: err.message }), 'PROPERTY_READ'));
          return;
        }
        const route = routeOf(value);
        const slots = routeSlots(msg, route, otherOutput);
        if (slots) {
          counts[route]++;
          send(slots);
        } else counts.dropped++;
        showStatus();
        done();
      });
    });
  });
};
