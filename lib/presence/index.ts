/** Who is present: the table and its due times, sightings read from events, what flows see, the saved file, the Redis scripts. */
export * from './table';
export * from './due-heap';
export * from './sighting';
export * from './report';
export * from './state-file';
export * from './local-presence';
export * from './redis-presence';
