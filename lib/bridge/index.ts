/** The events bridge: its client (enrollment and samples), the enrollment and WebHooks APIs and schemas, the sample events. */
export * from './client';
export * from './enroll-api';
export * from './enroll-schemas';
export * from './sample';
export * from './sample-images';
export * from './webhook-api';
export * from './webhooks';
