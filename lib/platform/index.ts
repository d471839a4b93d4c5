/** The platform v2 API: the client and its sign-in, URLs, plugins, batched pushes and their schemas. */
export * from './client';
export * from './fields';
export * from './path-template';
export * from './plugins';
export * from './push-errors';
export * from './push-queue';
export * from './push-schemas';
export * from './push-types';
export * from './retry';
export * from './tickets';
export * from './token-pair';
export * from './url';
