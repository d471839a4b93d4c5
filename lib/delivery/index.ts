/** Keeping events until a flow has finished them: the journal, the tracker and its budget, the Redis stream, completion. */
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
