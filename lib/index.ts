/** Node-RED-free core of node-red-contrib-detection-bridge. */
export * from './events/schemas';
export * from './http/problem';
export * from './events/auth';
export * from './http/json';
export * from './events/body';
export * from './events/receiver';
export * from './events/dedupe';
export * from './events/event-hash';
export * from './events/sample';
export * from './events/sample-client';
export * from './events/route';
export * from './events/image/image';
export * from './platform/client';
export * from './platform/push-queue';
export * from './platform/push-schemas';
export * from './platform/path-template';
