/**
 * detection-image: picks one image of a detection event (a plate crop by
 * cropSizeName, or the live / enrolled face image) and decodes it.
 * A thin adapter: picking, base64 checking and decoding are lib/image (pick.ts, decode.ts).
 */
import type { NodeAPI, NodeDef, NodeMessage } from 'node-red';
import {
  decodeImage,
  DEFAULT_CROP_ORDER,
  filenameBase,
  ImageError,
  imageFilename,
  parseCropList,
  pickImages,
  withProperty,
  type DecodedImage,
  type PickOptions,
} from '../../lib/image';
import { nodeOptions, type SavedOptions } from '../../lib/config';
import { coded, flowError, nodeText, statusText } from '../shared/i18n';
import { failConfig, throttledStatus } from '../shared/status';
import { propertyReader, type PropertyReader, type PropertyUtil } from '../shared/typed-property';
import { registerNode } from '../shared/register';

interface DetectionImageDef extends NodeDef, SavedOptions<'detection-image'> {
  property: string;
  propertyType: string;
  crops: string[] | string;
  outputProperty: string;
}

type Send = (msg: Array<NodeMessage | NodeMessage[] | null>) => void;
type Done = (err?: Error) => void;

export = function register(RED: NodeAPI): void {
  registerNode<DetectionImageDef>(RED, 'detection-image', (node, config) => {
    const t = nodeText(RED, 'detection-image');
    const s = statusText(RED, 'detection-image');
    const choices = nodeOptions('detection-image', config);

    const property = config.property || 'payload';
    const propertyType = config.propertyType || 'msg';
    const propertyLabel = propertyType === 'msg' ? `msg.${property}` : `${propertyType}:${property}`;
    const outputProperty = (config.outputProperty || 'image').replace(/^msg\./, '');
    const { format, noImage } = choices;
    // A flow written without the option gets the default order.
    const crops = config.crops === undefined || config.crops === null || config.crops === '' ? [...DEFAULT_CROP_ORDER] : parseCropList(config.crops);
    const options: PickOptions = {
      crops: crops ?? [],
      plateMode: choices.plateMode,
      face: choices.faceImage,
      faceFallback: choices.faceFallback,
    };

    let read: PropertyReader | undefined;
    let outputPath: Array<string | number> = [];
    let configProblem: string | undefined;
    if (!crops) configProblem = t('errors.crops', { crops: String(config.crops) });
    if (!configProblem) {
      try {
        outputPath = RED.util.normalisePropertyExpression(outputProperty);
      } catch (err) {
        configProblem = t('errors.output-property', { property: outputProperty, message: (err as Error).message });
      }
    }
    if (!configProblem) {
      try {
        read = propertyReader(RED.util as unknown as PropertyUtil, node, property, propertyType);
      } catch (err) {
        configProblem = t('errors.property', { property: propertyLabel, message: (err as Error).message });
      }
    }
    if (configProblem || !read) {
      failConfig(node, s('status.config'), configProblem ?? '', 'CONFIG');
      return;
    }
    const readEvent = read;

    const counts = { sent: 0, none: 0, errors: 0 };
    let last: 'sent' | 'none' | 'error' = 'sent';
    const showStatus = throttledStatus(node, () => ({
      fill: last === 'error' ? 'red' : last === 'none' ? 'yellow' : 'green',
      shape: 'dot',
      text: s('status.counts', counts),
    }));
    const failed = (done: Done, err: Error): void => {
      counts.errors++;
      last = 'error';
      showStatus();
      done(err);
    };

    const wanted = (kind: string): string =>
      kind === 'lpr'
        ? options.crops.join(', ')
        : options.faceFallback
          ? `${options.face}, ${options.face === 'photo' ? 'detection' : 'photo'}`
          : options.face;

    node.on('input', (msg: NodeMessage, send: Send, done: Done) => {
      readEvent(msg, (readErr, event) => {
        if (readErr) {
          failed(done, coded(t('errors.read', { property: propertyLabel, message: readErr.message }), 'PROPERTY_READ'));
          return;
        }
        try {
          const picked = pickImages(event, options);
          if (!picked.ok) {
            const message =
              picked.problem === 'unknown-kind'
                ? t('errors.unknown-kind', { publishType: picked.publishType })
                : t('errors.not-an-event', { property: propertyLabel });
            failed(done, coded(message, 'NOT_A_DETECTION'));
            return;
          }
          if (picked.images.length === 0) {
            if (noImage === 'error') {
              failed(done, coded(t('errors.no-image', { kind: picked.kind, wanted: wanted(picked.kind) }), 'NO_IMAGE'));
              return;
            }
            counts.none++;
            last = 'none';
            showStatus();
            send([null, msg]);
            done();
            return;
          }
          // Check and decode every picked image before anything is sent.
          let decoded: DecodedImage[];
          try {
            decoded = picked.images.map((found) => decodeImage(found, format));
          } catch (err) {
            if (err instanceof ImageError) {
              failed(done, flowError(RED, err));
              return;
            }
            throw err;
          }
          const base = filenameBase(event, picked.kind);
          if (decoded.length === 1) {
            const [{ value, info }] = decoded;
            RED.util.setMessageProperty(msg, outputProperty, value, true);
            msg.imageInfo = info;
            msg.filename = imageFilename(base, info.source, info.contentType);
            send([msg, null]);
          } else {
            // One message per image, each a shallow copy sharing the event.
            const out = decoded.map(({ value, info }) => {
              const m = withProperty(msg, outputPath, value);
              m.imageInfo = info;
              m.filename = imageFilename(base, info.source, info.contentType);
              return m;
            });
            send([out, null]);
          }
          counts.sent += decoded.length;
          last = 'sent';
          showStatus();
          done();
        } catch (err) {
          failed(done, err as Error);
        }
      });
    });
  });
};
