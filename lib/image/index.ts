/** Picking, checking and decoding the images of a detection event (detection-image). */
export {
  DEFAULT_CROP_ORDER,
  DEFAULT_PICK_OPTIONS,
  FACE_CHOICES,
  NO_IMAGE_POLICIES,
  parseCropList,
  pickImages,
  PLATE_MODES,
  type FaceChoice,
  type FoundImage,
  type NoImagePolicy,
  type PickOptions,
  type PickResult,
  type PlateMode,
} from './pick';
export { checkBase64, type Base64Check, type Base64Reason } from '../core/base64';
export {
  decodeImage,
  IMAGE_FORMATS,
  ImageError,
  OCTET_STREAM,
  sniffContentType,
  withProperty,
  type DecodedImage,
  type ImageFormat,
  type ImageInfo,
} from './decode';
export { compactTime, extensionFor, filenameBase, imageFilename, safeFilenamePart } from './filename';
