/** Transport, the face other subsystems use: the undici agent, base URLs, sending and capped reads, JSON bodies, problem answers, transport errors, listeners. */
export * from './addresses';
export * from './agent';
export * from './base-url';
export * from './content-type';
export * from './continue';
export * from './held-requests';
export * from './json';
export * from './linger';
export * from './listener-allow';
export * from './listener';
export * from './net-errors';
export * from './problem';
export * from './route-path';
export * from './self-signed';
export * from './send';
export * from './transport-error';
export * from './utf8';
// RouteHandler is listener.ts's, the same type
export { RouteHandover, type RemovableRoute, type RouteHandoverOptions, type ServedRoute } from './route-handover';
