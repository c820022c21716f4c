/**
 * The fresh-connection floor (issue 38 point 2): the least a Node process does to check N URLs every
 * `freq` seconds the way Pharos checks them: one `setTimeout` per URL, phased evenly over the period,
 * a GET on a new connection (`agent: false`, `connection: close`) with Node's own `http`/`https`,
 * the body read. Over HTTPS it verifies the certificate (the run's CA through
 * `NODE_EXTRA_CA_CERTS`) and resumes each origin's TLS session (the last session the origin gave,
 * passed back as `session`: RFC 8446 §2.2 tickets), so its handshakes are as cheap as Node makes
 * them. No store, no state, no API. bench/monitors.ts runs it beside Pharos for each scheme, so the
 * HTTPS/HTTP ratio of Node itself is measured in the same run as Pharos's.
 * Usage: node bench/fresh-floor.ts <n> <freqSeconds> <url0 template with {i}> ; `{i}` and `{addr}`
 * in the template are replaced by the URL's index and its origin address (bench/origins-lib.ts).
 * The loop and its signals are bench/floor-loop.ts's: on SIGUSR2 it prints `{done, failed, resumed,
 * full}`, on SIGTERM the same with `lagMs` (lag samples in ms since the last SIGUSR2), and exits.
 */
import { get as httpGet } from 'node:http';
import { get as httpsGet } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { originAddress } from './origins-lib.ts';
import { benchArgs } from './args.ts';
import { runFloorLoop } from './floor-loop.ts';

const { positionals } = benchArgs({
  about: "The fresh-connection floor: N URLs every freq seconds, one timer each, a GET on a new connection with Node's http/https (TLS sessions resumed per origin), no store. SIGUSR2 prints {done, failed, resumed, full}; SIGTERM prints the same with lagMs and exits.",
  positionals: [
    { name: 'n', help: 'URLs to check' },
    { name: 'freqSeconds', help: 'seconds between checks of one URL' },
    { name: 'template', help: 'URL template: {i} is the index, {addr} its origin address (127.2.x.y)' },
  ],
  options: {},
});
const [n, freqS, template] = [Number(positionals[0]), Number(positionals[1]), positionals[2]!];
const periodMs = freqS * 1000;
const urls = Array.from({ length: n }, (_, i) => new URL(template.replaceAll('{i}', String(i)).replaceAll('{addr}', originAddress(i))));
const https = urls[0]!.protocol === 'https:';
/** The last TLS session each origin gave, by origin. */
const sessions = new Map<string, Buffer>();
let done = 0;
let failed = 0;
let resumed = 0;
let full = 0;

function check(url: URL): void {
  const opts = { agent: false as const, headers: { connection: 'close' }, timeout: 10_000, ...(https ? { session: sessions.get(url.host), servername: url.hostname } : {}) };
  const req = (https ? httpsGet : httpGet)(url, opts, (res) => {
    res.resume();
    res.on('end', () => done++);
    res.on('error', () => failed++);
  });
  if (https) {
    req.on('socket', (s) => {
      const tls = s as TLSSocket;
      tls.on('session', (session: Buffer) => sessions.set(url.host, session));
      tls.once('secureConnect', () => (tls.isSessionReused() ? resumed++ : full++));
    });
  }
  req.on('timeout', () => req.destroy(new Error('timeout')));
  req.on('error', () => failed++);
}

runFloorLoop(n, periodMs, (i) => check(urls[i]!), () => ({ done, failed, resumed, full }));
