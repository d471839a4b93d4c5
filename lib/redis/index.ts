/** A Redis connection shared by the nodes that name one detection-redis. */
export * from './answer-within';
export * from './connection';
export * from './sentinel';
export * from './confirm';
