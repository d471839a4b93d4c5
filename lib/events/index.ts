/** The event itself: its schemas, the flat view, filter rules and their time windows, the tag prefix, the event hash, the publish route. */
export * from './schemas';
export * from './detection-view';
export * from './filter';
export * from './filter-explain';
export * from './time-window';
export * from './tag-prefix';
export * from './event-hash';
export * from './publish-route';
export * from './message';
