/** Keeping events until a flow has finished them: the store session a receiver holds (and what removed receivers left), the journal, the tracker and its budget, the Redis stream, completion. */
export * from './journal';
export * from './tracker';
export * from './budget';
export * from './registry';
export * from './downstream';
export * from './stream';
export * from './types';
export * from './retry';
export * from './completion';
export * from './dead-letters';
export * from './session';
export { lostAtRestart } from './store-open';
export * from './session-view';
export * from './session-metrics';
export * from './deploy-watch';
export * from './stranded';
