/**
 * The events bridge simulator and the mock platform v2 core (Node-RED-free),
 * the package's `./sim` entry, apart from lib's API: the anonymous sample
 * endpoints served over HTTP(S), event delivery to a receiver the way the
 * bridge delivers (rate, mix, credentials, resilient retries, timeouts,
 * self-signed TLS) with a summary of what happened, scenarios (which plates,
 * faces, tags, cameras, sites, zones and times of day the events show), the pictures that show
 * the event's plate or name and the font they are drawn with, the enrollment endpoints
 * (in memory, behind a JWT) whose plates and faces a delivery draws from, the WebHooks controller
 * and the delivery to its registrations, and a mock v2 core to
 * push into. The command line program is bin/detection-bridge-sim.ts over
 * cli.ts.
 */
export {
  DEFAULT_SAMPLE_HOST,
  DEFAULT_SAMPLE_PORT,
  startSampleServer,
  type SampleRequestInfo,
  type SampleServer,
  type SampleServerOptions,
  type SampleServerTls,
} from './sample-server';
export {
  DeliveryRun,
  runDelivery,
  startDelivery,
  type AttemptOutcome,
  type AttemptReport,
  type DeliveryEvents,
  type SentReport,
  type SettledReport,
} from './delivery';
export { DELIVERY_DEFAULTS, SimOptionError, type DeliveryOptions } from './delivery-options';
export { buildDeliveryEvent, IMAGE_MODES, kindForSeq, REALISTIC_EVENT_BYTES, type DeliveryEventOptions, type ImageMode } from './events';
export { DRAWN_PICTURES_MAX, drawnPicture, FRAME_PIXELS, type PictureName } from './pictures';
export { CELL_COLUMNS, FALLBACK_CHAR, foldForFont, fontGlyphs, glyphOf, GLYPH_COLUMNS, GLYPH_ROWS, type Glyph } from './font';
export {
  applyScene,
  BUILT_IN_SCENARIOS,
  hourIsIn,
  latestLocalTime,
  localTime,
  MIXED_SCENARIO,
  parseScenario,
  ScenarioDraw,
  ScenarioError,
  SCENARIO_SCHEMA,
  TIME_OF_DAY_NAMES,
  type EventScene,
  type Scenario,
  type ScenarioInput,
} from './scenario';
export { formatSummary, writeSummaryJson, type DeliverySummary, type LatencySummary } from './summary';
export { createSelfSignedCertificate, type SelfSignedCertificate, type SelfSignedOptions } from './tls';
export { createMockCore, DEFAULT_MOCK_PLUGINS, startMockCore, type MockCore, type MockCoreOptions } from './mock-core';
export {
  EnrollmentStore,
  createSimJwt,
  type EnrollFailure,
  type EnrollRequest,
  type EnrollmentStoreOptions,
  type SimEnrollment,
} from './enroll-server';
export { applyEnrollment, EnrolledDraw, ENROLLED_TAG_PREFIX } from './enrolled-events';
export {
  EMPTY_GUID,
  SimWebHookSchema,
  WEBHOOKS_NEW_PATH,
  WEBHOOKS_PATH,
  WebHookStore,
  type SimWebHook,
  type StoredWebHook,
  type WebHookChange,
  type WebHookRequest,
  type WebHookStoreOptions,
} from './webhooks-server';
export {
  WebHookDelivery,
  webHookHeaders,
  webHooksFor,
  type WebHookAttempt,
  type WebHookCounts,
  type WebHookDeliveryOptions,
  type WebHookOutcome,
} from './webhook-delivery';
