/** Dropping repeats: the local window, the Redis window, the key log and the key; the cap on what passes (local or through Redis). */
export * from './local-window';
export * from './redis-window';
export * from './key-log';
export * from './key';
export * from './seen-keys';
export * from './cap';
export * from './redis-cap';
