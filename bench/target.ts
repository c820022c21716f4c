/**
 * Bench target: an HTTP/1.1 server on 127.0.0.1 that answers every request `200 ok` with keep-alive.
 * Runs as its own process so that its CPU is not counted against Pharos or the baseline.
 * Usage: node bench/target.ts <port> (Node 24 strips the types)   (prints "ready" when listening)
 * SIGUSR2 toggles failing: every path but `/hook` then answers `500`. `POST /hook` (a webhook
 * receiver for alert benches) always answers 200 and is counted; SIGUSR1 prints `{"hooks": n}`.
 */
import { createServer } from 'node:http';
import { benchArgs } from './args.ts';

const { positionals } = benchArgs({
  about: 'Bench target: answers every request `200 ok` with keep-alive on 127.0.0.1 (prints "ready"). SIGUSR2 toggles failing (500 but on /hook); SIGUSR1 prints {"hooks": n}.',
  positionals: [{ name: 'port', help: 'the port to listen on' }],
  options: {},
});
const port = Number(positionals[0]);
let failing = false;
let hooks = 0;
const server = createServer((req, res) => {
  req.resume();
  const hook = req.url === '/hook';
  if (hook) hooks++;
  const status = failing && !hook ? 500 : 200;
  res.writeHead(status, { 'content-type': 'text/plain', 'content-length': '2' });
  res.end(status === 200 ? 'ok' : 'no');
});
server.keepAliveTimeout = 60_000;
server.maxRequestsPerSocket = 0;
server.listen(port, '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGUSR2', () => (failing = !failing));
process.on('SIGUSR1', () => process.stdout.write(JSON.stringify({ hooks }) + '\n'));
process.on('SIGTERM', () => process.exit(0));
