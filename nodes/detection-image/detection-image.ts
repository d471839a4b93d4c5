/**
 * detection-image: picks one image of a detection event (a plate crop by
 * cropSizeName, or the live / enrolled face image) and decodes it.
 * A thin adapter: picking, base64 checking and decoding are lib/image.ts.
 */
import type { Node, NodeAPI, NodeDef, NodeMessage } from 'node-red';
import {
  decodeImage,
  DEFAULT_CROP_ORDER,
  FACE_CHOICES,
  filenameBase,
  IMAGE_FORMATS,
  ImageError,
  imageFilename,
  NO_IMAGE_POLICIES,
  parseCropList,
  pickImages,
  PLATE_MODES,
  withProperty,
  type DecodedImage,
  type FaceChoice,
  type ImageFormat,
  type NoImagePolicy,
  type PickOptions,
  type PlateMode,
} from '../../lib/events/image/image';
import { throttle } from '../shared/throttle';
import { propertyReader, type PropertyReader, type PropertyUtil } from '../shared/typed-property';

interface DetectionImageDef extends NodeDef {
  property: string;
  propertyType: string;
  crops: string[] | string;
  plateMode: PlateMode;
  faceImage: FaceChoice;
  faceFallback: boolean | string;
  format: ImageFormat;
  outputProperty: string;
  noImage: NoImagePolicy;
}

type Send = (msg: Array<NodeMessage | NodeMessage[] | null>) => void;
type Done = (err?: Error) => void;

const oneOf = <T extends string>(allowed: readonly T[], value: unknown, fallback: T): T =>
  (allowed as readonly unknown[]).includes(value) ? (value as T) : fallback;

/** An Error whose `code` reaches Catch nodes as `msg.error.code`. */
const coded = (message: string, code: string): Error => Object.assign(new Error(message), { code });

export = function register(RED: NodeAPI): void {
  function DetectionImage(this: Node, config: DetectionImageDef): void {
    RED.nodes.createNode(this, config);
    const node = this;
    const t = (key: string, vars?: Record<string, string | number>): string => RED._(`detection-image.${key}`, vars);

    const property = config.property || 'payload';
    const propertyType = config.propertyType || 'msg';
    const propertyLabel = propertyType === 'msg' ? `msg.${property}` : `${propertyType}:${property}`;
    const outputProperty = (config.outputProperty || 'image').replace(/^msg\./, '');
    const format = oneOf(IMAGE_FORMATS, config.format, 'buffer');
    const noImage = oneOf(NO_IMAGE_POLICIES, config.noImage, 'output');
    // A flow written without the option gets the default order.
    const crops = config.crops === undefined || config.crops === null || config.crops === '' ? [...DEFAULT_CROP_ORDER] : parseCropList(config.crops);
    const options: PickOptions = {
      crops: crops ?? [],
      plateMode: oneOf(PLATE_MODES, config.plateMode, 'first'),
      face: oneOf(FACE_CHOICES, config.faceImage, 'detection'),
      faceFallback: config.faceFallback !== false && config.faceFallback !== 'false',
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
      const problem = configProblem ?? '';
      node.status({ fill: 'red', shape: 'ring', text: t('status.config') });
      node.error(problem);
      node.on('input', (_msg: NodeMessage, _send: Send, done: Done) => done(coded(problem, 'CONFIG')));
      return;
    }
    const readEvent = read;

    const counts = { sent: 0, none: 0, errors: 0 };
    let last: 'sent' | 'none' | 'error' = 'sent';
    const showStatus = throttle(() => {
      node.status({
        fill: last === 'error' ? 'red' : last === 'none' ? 'yellow' : 'green',
        shape: 'dot',
        text: t('status.counts', counts),
      });
    }, 250);
    const failed = (done: Done, err: Error): void => {
      counts.errors++;
      last = 'error';
      showStatus();
      done(err);
    };

    /** Localised message for a bad image field; the path is always in it. */
    const imageErrorMessage = (err: ImageError): string =>
      t(`errors.base64.${err.reason}`, { path: err.path, position: err.position, char: err.char ?? '' });

    const wanted = (kind: string): string =>
      kind === 'lpr' ? options.crops.join(', ') : options.faceFallback ? `${options.face}, ${options.face === 'photo' ? 'detection' : 'photo'}` : options.face;

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
              failed(done, coded(imageErrorMessage(err), err.code));
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

    node.on('close', (_removed: boolean, done: () => void) => {
      showStatus.cancel();
      done();
    });
  }

  RED.nodes.registerType('detection-image', DetectionImage);
};
