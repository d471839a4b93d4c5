/** An operator's view: the sources nodes register, Prometheus metrics over them, health answers. */
export * from './histogram';
export * from './sources';
export * from './health';
export * from './prometheus';
export * from './runtime';
export * from './credential';
