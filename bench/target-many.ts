/**
 * Bench target for distinct origins: one node:http server answering `200 ok` on each of N addresses
 * of 127.0.0.0/8 (127.2.x.y, 250 per /24), all on one port, so N monitors have N distinct origins.
 * Usage: node bench/target-many.ts <port> <n>   (prints "ready" when every address listens)
 * On SIGUSR2 prints `{open}`: connections open at the targets now.
 */
import { createServer } from 'node:http';
import { originAddress } from './origins-lib.ts';
import { benchArgs } from './args.ts';

const { positionals } = benchArgs({
  about: 'Bench target for distinct origins: answers `200 ok` on each of N addresses of 127.0.0.0/8, all on one port (prints "ready"). SIGUSR2 prints {open}.',
  positionals: [
    { name: 'port', help: 'the port every address listens on' },
    { name: 'n', help: 'how many addresses (127.2.x.y, 250 per /24)' },
  ],
  options: {},
});
const port = Number(positionals[0]);
const n = Number(positionals[1]);
let open = 0;
const handler = (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
  req.resume();
  res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' });
  res.end('ok');
};
let listening = 0;
for (let i = 0; i < n; i++) {
  const server = createServer(handler);
  server.keepAliveTimeout = 60_000;
  server.maxRequestsPerSocket = 0;
  server.on('connection', (s) => {
    open++;
    s.once('close', () => open--);
  });
  server.listen(port, originAddress(i), () => {
    if (++listening === n) process.stdout.write('ready\n');
  });
}
process.on('SIGUSR2', () => process.stdout.write(JSON.stringify({ open }) + '\n'));
process.on('SIGTERM', () => process.exit(0));
