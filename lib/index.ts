/** Node-RED-free core of node-red-contrib-detection-bridge. */
export * from './schemas';
export * from './problem';
export * from './auth';
export * from './json';
export * from './body';
export * from './receiver';
export * from './dedupe';
export * from './event-hash';
export * from './sample';
export * from './bridge-client';
export * from './route';
export * from './image';
export * from './typed-property';
export * from './platform-client';
export * from './push';
export * from './push-schemas';
export * from './path-template';
