/**
 * The events bridge simulator (Node-RED-free): the anonymous sample endpoints
 * served over HTTP(S), and event delivery to a receiver the way the bridge
 * delivers (rate, mix, credentials, resilient retries, timeouts, self-signed
 * TLS), with a summary of what happened. The command line program is
 * bin/detection-bridge-sim.ts.
 */
export * from './sample-server';
export * from './delivery';
export * from './summary';
export * from './images';
export * from './tls';
