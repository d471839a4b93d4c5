/**
 * The Node-RED-free core of node-red-contrib-detection-bridge: what a program
 * may use without Node-RED. Named one by one; the modules behind it keep
 * their helpers to themselves. The simulator and the mock core are not here:
 * they are the `./sim` entry.
 */

// Receiving events: the bridge's payloads, the receiver and what flows do with events.
export {
  checkEvent,
  kindOf,
  CROP_SIZE_NAMES,
  PUBLISH_TYPE_FACE,
  PUBLISH_TYPE_LPR,
  DetectionEvent,
  WebHookFaceRecPayload,
  WebHookLprPayload,
  type CropSizeName,
  type EventCheck,
  type EventKind,
  type SchemaError,
} from './events/schemas';
export { validateEvent, VALIDATION_MODES, type ValidationMode, type ValidationResult, type WrongCase } from './receiver/validation';
export { parseIsoDate, isIsoDate } from './core/iso-date';
export { authConfigProblem, checkAuth, type AuthConfig, type AuthMode, type AuthResult } from './receiver/auth';
export {
  createReceiver,
  DEFAULT_MAX_BODY_BYTES,
  type AcceptedDelivery,
  type DeliveryMeta,
  type InvalidDelivery,
  type ReceiverHooks,
  type ReceiverOptions,
  type RequestHandler,
} from './receiver/receiver';
export { DedupeWindow, type DedupeWindowOptions, type Sighting } from './dedupe/local-window';
export { LocalSeenKeys, type LocalPersistence, type SeenKeys } from './dedupe/seen-keys';
export { RedisSeenKeys, type SharedWindowOptions } from './dedupe/redis-window';
export { eventHash } from './events/event-hash';
export { routeOf, type Route } from './events/publish-route';
export { detectionView, viewOfEvent, type DetectionView, type FaceView, type PlateView } from './events/detection-view';
export {
  compileFilter,
  DetectionFilter,
  COMBINES,
  LIST_RULE_TYPES,
  RULE_TYPES,
  type Combine,
  type CompileResult,
  type FilterProblem,
  type ListRead,
  type RuleConfig,
  type RuleType,
} from './events/filter';
export { buildSampleEvent, sampleModelPath, type SampleOptions } from './bridge/sample';
export { fetchSample, sampleUrl, type FetchedSample, type FetchSampleOptions } from './bridge/sample-client';
export { decodeImage, ImageError, pickImages, type DecodedImage, type FoundImage, type ImageFormat, type PickOptions } from './image';

// Keeping events until a flow has finished them.
export { Journal, JournalFullError, type JournalEntry, type JournalOptions, type JournalProblem } from './delivery/journal';
export {
  DeliveryTracker,
  BusyError,
  ACK_MODES,
  type AckMode,
  type DeliveryId,
  type DeliveryRecord,
  type EventDelivery,
  type StagedDelivery,
  type TrackerOptions,
} from './delivery/tracker';

export { RedisStreamDelivery, STREAM_GROUP, type StreamDeliveryOptions } from './delivery/stream';
export {
  RedisConnection,
  RedisSettings,
  RedisUnavailableError,
  DEFAULT_PREFIX,
  type ConnectionOptions,
  type ConnectionState,
  type RedisCredentials,
} from './redis/connection';

// The platform v2 API: sign-in, any call, batched pushes.
export { PlatformClient, statusError, type PlatformClientOptions, type PlatformRequestOptions, type PlatformResponse } from './platform/client';
export { posBatchPath } from './platform/url';
export { posPlugins, type PluginInfo } from './platform/plugins';
export { PushQueue, type PushQueueOptions, type TicketOutcome } from './platform/push-queue';
export { checkPushItems, type PushItemError } from './platform/push-schemas';

// The bridge's enrollment endpoints: watch lists of plates and faces.
export {
  EventsBridgeClient,
  bridgeReason,
  type BridgeAnswer,
  type CheckAnswer,
  type EventsBridgeClientOptions,
  type ListPage,
} from './bridge/client';
export { DEFAULT_ENROLLMENT_PATHS, resolveEnrollmentApi, type EnrollmentApi, type EnrollmentApiOptions } from './bridge/enroll-api';
export {
  ENROLL_ACTIONS,
  faceBody,
  plateBody,
  readExternalId,
  AdditionalFieldItem,
  EnrollmentStatus,
  FaceEnrollment,
  MonitoredItem,
  PlateEnrollment,
  TagInfoItem,
  type EnrollAction,
  type EnrollKind,
} from './bridge/enroll-schemas';

// Transport and text.
export { TransportError, type TransportReason, type TransportService } from './http/transport-error';
export { parseJsonBody, type JsonParseResult } from './http/json';
export { renderMessage, type Message, type MessageParams } from './core/messages';
