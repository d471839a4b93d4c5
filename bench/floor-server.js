'use strict';
/**
 * The floor: a bare node:http server that reads the body and runs JSON.parse,
 * nothing else, in a process of its own (so its RSS is its own). Reports its
 * port over IPC; stops on SIGTERM/SIGINT or when the parent goes away.
 */
const http = require('node:http');

const ANSWER = Buffer.from('{"status":"accepted"}');

const server = http.createServer((req, res) => {
  const chunks = [];
  let size = 0;
  req.on('data', (chunk) => {
    chunks.push(chunk);
    size += chunk.length;
  });
  req.on('end', () => {
    try {
      // The floor does the work every receiver must: the whole body parsed.
      JSON.parse(Buffer.concat(chunks, size).toString('utf8'));
    } catch {
      res.writeHead(400, { 'content-type': 'text/plain' });
      res.end('bad json');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': ANSWER.length });
    res.end(ANSWER);
  });
});
server.keepAliveTimeout = 30000;

function stop() {
  server.closeAllConnections();
  server.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 2000).unref();
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.on('disconnect', stop);

server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
