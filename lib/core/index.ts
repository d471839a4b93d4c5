/**
 * What every subsystem shares, as one face for nodes/ and sim/ (lib's own
 * subsystems may import a core file directly: core is the bottom of lib).
 */
export * from './append-log';
export * from './base64';
export * from './clock';
export * from './event-kinds';
export * from './file-format';
export * from './iso-date';
export * from './messages';
export * from './option-rules';
export * from './options';
export * from './outage-report';
export * from './rate-limit';
export * from './schema-error';
export * from './time-zone';
export * from './whole-file';
