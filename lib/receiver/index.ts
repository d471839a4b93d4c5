/** Receiving an event over HTTP: auth, the body, the receiver, validation, what it turned away and said, and the warning gate. */
export * from './auth';
export * from './body';
export * from './failure-log';
export * from './receiver';
export * from './refusals';
export * from './validation';
export * from './warning-gate';
