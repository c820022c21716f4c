/**
 * Ping baseline: the least an HTTP server must do to take pings: node:http, a Set lookup of the
 * token, `200 OK` (unknown → 404). Nothing is stored. Pharos's ping endpoint is measured against it.
 * Usage: node bench/ping-baseline.ts <port> <tokensFile>   (one token per line; prints "ready")
 */
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { benchArgs } from './args.ts';

const { positionals } = benchArgs({
  about: 'Ping baseline: node:http, a Set lookup of the token, 200 OK (unknown: 404); nothing stored (prints "ready").',
  positionals: [
    { name: 'port', help: 'the port to listen on' },
    { name: 'tokensFile', help: 'one token per line' },
  ],
  options: {},
});
const [port, file] = [Number(positionals[0]), positionals[1]!];
const tokens = new Set(readFileSync(file, 'utf8').split('\n').filter(Boolean));
const server = createServer((req, res) => {
  req.resume();
  const token = req.url!.slice('/ping/'.length).split('/')[0]!;
  const ok = tokens.has(token);
  res.writeHead(ok ? 200 : 404, { 'content-type': 'text/plain' });
  res.end(ok ? 'OK' : 'Not found');
});
server.keepAliveTimeout = 60_000;
server.listen(port, '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => process.exit(0));
