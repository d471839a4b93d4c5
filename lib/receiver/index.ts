/** Receiving an event over HTTP: auth, the body, the receiver, validation and the warning gate. */
export * from './auth';
export * from './body';
export * from './receiver';
export * from './validation';
export * from './warning-gate';
