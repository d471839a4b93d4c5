/** Alarms people answer: the book and its rules, alerts read from events, the mail link's tokens and page, where the book is kept (a file, or Redis shared by several instances). */
export * from './types';
export * from './book';
export * from './alert-in';
export * from './link';
export * from './local-store';
export * from './redis-store';
export * from './action';
export * from './notice';
export * from './page';
