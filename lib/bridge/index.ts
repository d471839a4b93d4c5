/** The events bridge: its client (enrollment and samples), the enrollment API and schemas, the sample events. */
export * from './client';
export * from './enroll-api';
export * from './enroll-schemas';
export * from './sample';
export * from './sample-images';
