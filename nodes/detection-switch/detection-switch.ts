/**
 * detection-switch: routes messages on the event's `publishType`, face to
 * output 1, plate to output 2, anything else to output 3 (or dropped).
 * A thin adapter: the routing is lib/route.ts.
 */
import type { Node, NodeAPI, NodeDef, NodeMessage } from 'node-red';
import { routeOf, routeSlots, type Route } from '../../lib/events/route';
import { throttle } from '../shared/throttle';
import { propertyReader, type PropertyReader, type PropertyUtil } from '../shared/typed-property';

interface DetectionSwitchDef extends NodeDef {
  property: string;
  propertyType: string;
  otherOutput: boolean | string;
}

export = function register(RED: NodeAPI): void {
  function DetectionSwitch(this: Node, config: DetectionSwitchDef): void {
    RED.nodes.createNode(this, config);
    const node = this;
    const t = (key: string, vars?: Record<string, string | number>): string => RED._(`detection-switch.${key}`, vars);

    const property = config.property || 'payload';
    const propertyType = config.propertyType || 'msg';
    // Older or hand-written flows without the option keep the third output.
    const otherOutput = config.otherOutput !== false && config.otherOutput !== 'false';

    let read: PropertyReader;
    try {
      read = propertyReader(RED.util as unknown as PropertyUtil, node, property, propertyType);
    } catch (err) {
      const problem = t('errors.property', { property: `${propertyType}:${property}`, message: (err as Error).message });
      node.status({ fill: 'red', shape: 'ring', text: t('status.config') });
      node.error(problem);
      node.on('input', (_msg: NodeMessage, _send: unknown, done: (err?: Error) => void) => done(new Error(problem)));
      return;
    }

    const counts: Record<Route | 'dropped', number> = { face: 0, plate: 0, other: 0, dropped: 0 };
    const showStatus = throttle(() => {
      const vars = { face: counts.face, plate: counts.plate, other: counts.other, dropped: counts.dropped };
      node.status({ fill: 'green', shape: 'dot', text: t(otherOutput ? 'status.counts' : 'status.counts-dropped', vars) });
    }, 250);

    node.on('input', (msg: NodeMessage, send: (msg: Array<NodeMessage | null>) => void, done: (err?: Error) => void) => {
      read(msg, (err, value) => {
        if (err) {
          done(Object.assign(new Error(t('errors.read', { property: `${propertyType}:${property}`, message: err.message })), { code: 'PROPERTY_READ' }));
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

    node.on('close', (_removed: boolean, done: () => void) => {
      showStatus.cancel();
      done();
    });
  }

  RED.nodes.registerType('detection-switch', DetectionSwitch);
};
