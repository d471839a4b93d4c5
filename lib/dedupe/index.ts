/** Dropping repeats: the local window, the Redis window, the key log and the key. */
export * from './local-window';
export * from './redis-window';
export * from './key-log';
export * from './key';
export * from './seen-keys';
