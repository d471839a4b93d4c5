/** Node-RED-free core of node-red-contrib-detection-bridge. */
export * from './schemas';
export * from './problem';
export * from './auth';
export * from './json';
export * from './body';
export * from './receiver';
