/**
 * Bench target: an HTTP/1.1 server on 127.0.0.1 that answers every request `200 ok` with keep-alive.
 * Runs as its own process so that its CPU is not counted against Pharos or the baseline.
 * Usage: node bench/target.ts <port> (Node 24 strips the types)   (prints "ready" when listening)
 */
import { createServer } from 'node:http';

const port = Number(process.argv[2]);
const server = createServer((req, res) => {
  req.resume();
  res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' });
  res.end('ok');
});
server.keepAliveTimeout = 60_000;
server.maxRequestsPerSocket = 0;
server.listen(port, '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => process.exit(0));
