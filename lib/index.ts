/**
 * The Node-RED-free core of node-red-contrib-detection-bridge: what a program
 * may use without Node-RED. Named one by one; the modules behind it keep
 * their helpers to themselves. The simulator and the mock core are not here:
 * they are the `./sim` entry.
 *
 * lib/ is split by subsystem (docs/contributing/architecture.md). A subsystem's files import
 * their own subsystem, anything in lib/core (the bottom: it imports only
 * itself), and other subsystems only through their face, `lib/<name>/index.ts`;
 * this file too. test/unit/architecture.test.js holds every import to that,
 * and to no import cycle.
 */

// Receiving events: the bridge's payloads, the receiver and what flows do with events.
export { checkEvent, kindOf, DetectionEvent, WebHookFaceRecPayload, WebHookLprPayload, type EventCheck } from './events';
export { CROP_SIZE_NAMES, PUBLISH_TYPE_FACE, PUBLISH_TYPE_LPR, type CropSizeName, type EventKind } from './core/event-kinds';
export { type SchemaError } from './core/schema-error';
export { validateEvent, VALIDATION_MODES, type ValidationMode, type ValidationResult, type WrongCase } from './receiver';
export { parseIsoDate, isIsoDate } from './core/iso-date';
export { authConfigProblem, checkAuth, type AuthConfig, type AuthMode, type AuthResult } from './receiver';
export {
  createReceiver,
  DEFAULT_MAX_BODY_BYTES,
  type AcceptedDelivery,
  type DeliveryMeta,
  type InvalidDelivery,
  type ReceiverHooks,
  type ReceiverOptions,
  type RequestHandler,
} from './receiver';
export { DedupeWindow, type DedupeWindowOptions, type Sighting } from './dedupe';
export { LocalSeenKeys, RedisSeenKeys, type LocalPersistence, type SeenKeys, type SharedWindowOptions } from './dedupe';
export { eventHash } from './events';
export { routeOf, type Route } from './events';
export { detectionView, viewOfEvent, type DetectionView, type FaceView, type PlateView } from './events';
export {
  compileFilter,
  DetectionFilter,
  COMBINES,
  LIST_RULE_TYPES,
  RULE_TYPES,
  type Combine,
  type CompileResult,
  type FilterOutcome,
  type FilterProblem,
  type ListRead,
  type PlateMatch,
  type PlateOptions,
  type RuleConfig,
  type RuleType,
} from './events';
export {
  detectionTime,
  formatWindows,
  isInside,
  knownTimeZone,
  parseWindows,
  TIME_KINDS,
  TIME_SOURCES,
  timeZoneProblem,
  type DetectionTime,
  type ReadProblem,
  type RuleRead,
  type TimeKind,
  type TimeWindow,
  type WindowsResult,
} from './events';
// Plates as read: look-alike classes, the watch-list index, the preview of an entry.
export {
  compilePlateList,
  DEFAULT_LOOKALIKE_CLASSES,
  DEFAULT_LOOKALIKES,
  Lookalikes,
  MAX_EXTRA_MISSING,
  MAX_LOOKALIKES,
  NO_LOOKALIKES,
  normalisePlate,
  parseLookalikeClasses,
  PlateList,
  plateListCompilations,
  previewPlateEntry,
  type LookalikeParse,
  type PlateDifference,
  type PlateListMatch,
  type PlateListOptions,
  type PlateMatchKind,
  type PlatePreview,
  type PreviewChange,
  type PreviewExample,
} from './plates';
export { buildSampleEvent, sampleModelPath, type SampleOptions } from './bridge';
export { fetchSample, sampleUrl, type FetchedSample, type FetchSampleOptions } from './bridge';
export {
  PresenceTable,
  LocalPresence,
  RedisPresence,
  sightingOf,
  presenceReport,
  presentRows,
  PRESENCE_KEYS,
  type PresenceEntry,
  type PresenceOptions,
  type PresenceReport,
  type PresenceStore,
  type PresentRow,
  type SightingInput,
  type SightResult,
  type SweepResult,
} from './presence';
export { decodeImage, ImageError, pickImages, type DecodedImage, type FoundImage, type ImageFormat, type PickOptions } from './image';
export { ALERT_FIELDS, ALERT_SENDERS, alertValues, buildAlert, renderTemplate, unknownFields, type AlertSender } from './alert';

// Keeping events until a flow has finished them.
export { Journal, JournalFullError, type JournalEntry, type JournalOptions, type JournalProblem } from './delivery';
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
} from './delivery';

export { RedisStreamDelivery, STREAM_GROUP, type StreamDeliveryOptions } from './delivery';
export {
  RedisConnection,
  RedisSettings,
  RedisUnavailableError,
  DEFAULT_PREFIX,
  type ConnectionOptions,
  type ConnectionState,
  type RedisCredentials,
} from './redis';

// The platform v2 API: sign-in, any call, batched pushes.
export { PlatformClient, statusError, type PlatformClientOptions, type PlatformRequestOptions, type PlatformResponse } from './platform';
export { posBatchPath } from './platform';
export { posPlugins, type PluginInfo } from './platform';
export { PushQueue, type PushQueueOptions, type TicketOutcome } from './platform';
export { checkPushItems, type PushItemError } from './platform';

// The bridge's enrollment endpoints: watch lists of plates and faces.
export { EventsBridgeClient, bridgeReason, type BridgeAnswer, type CheckAnswer, type EventsBridgeClientOptions, type ListPage } from './bridge';
export { DEFAULT_ENROLLMENT_PATHS, resolveEnrollmentApi, type EnrollmentApi, type EnrollmentApiOptions } from './bridge';
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
} from './bridge';

// Transport and text.
export { TransportError, type TransportReason, type TransportService } from './http';
export { parseJsonBody, type JsonParseResult } from './http';
export { renderMessage, type Message, type MessageParams } from './core/messages';
