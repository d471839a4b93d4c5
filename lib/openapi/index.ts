/** A release's OpenAPI document: loading it, its operations and their bodies. */
export * from './document';
export * from './load';
export * from './operations';
