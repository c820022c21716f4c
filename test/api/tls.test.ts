import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getCACertificates, setDefaultCACertificates, type PeerCertificate, type TLSSocket } from 'node:tls';
import { createLogger } from '../../src/lib/logger.ts';
import { renewalDueMs } from '../../src/tls/acme.ts';
import { testCa } from '../support/certs.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { loopbackDns, startPebble, type Pebble } from '../support/pebble.ts';
import { ONCE_IN_SQLITE_RUN, startTestPharos, WRITE_TOKEN, type TestPharos } from '../support/pharos.ts';
import { freePort, waitFor } from '../support/process.ts';

// HTTPS built in (issue 37 point 2): ACME orders against Debian's pebble on loopback, certificate files.
// Not a store test (but for the failure notice): once, in the SQLite run.

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  cert: PeerCertificate;
}

/** GET (or `json` POSTed with the write token) https://<host>:<port><path> connecting to 127.0.0.1 with SNI `host`, trusting only `ca`. */
function httpsGet(port: number, host: string, path: string, ca: string, json?: unknown): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers = { host: `${host}:${port}`, ...(json === undefined ? {} : { authorization: `Bearer ${WRITE_TOKEN}`, 'content-type': 'application/json' }) };
    const req = httpsRequest({ host: '127.0.0.1', port, path, servername: host, method: json === undefined ? 'GET' : 'POST', headers, ca, agent: false }, (res) => {
      const cert = (res.socket as TLSSocket).getPeerCertificate();
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body, cert }));
    });
    req.on('error', reject).end(json === undefined ? undefined : JSON.stringify(json));
  });
}

function httpGet(port: number, host: string, path: string): Promise<{ status: number; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    httpRequest({ host: '127.0.0.1', port, path, headers: { host }, agent: false }, (res) => {
      res.resume().on('end', () => resolve({ status: res.statusCode!, headers: res.headers }));
    })
      .on('error', reject)
      .end();
  });
}

const serial = (pem: string) => new X509Certificate(pem).serialNumber;
const orders = (pebble: Pebble) => pebble.log().filter((l) => l.includes('/order-plz')).length;

let dns: Awaited<ReturnType<typeof loopbackDns>>;
before(async () => {
  dns = await loopbackDns();
});
after(() => dns?.close());

test('ACME over HTTP-01 (pebble): issue, serve, pages\' own hostnames on demand, strangers refused, renew before expiry, redirect, HSTS', { skip: ONCE_IN_SQLITE_RUN }, async () => {
  const [httpsPort, httpPort] = [await freePort(), await freePort()];
  const pebble = await startPebble({ httpPort, tlsPort: httpsPort, dnsPort: dns.port });
  setDefaultCACertificates([...getCACertificates('default'), pebble.listenerCa]);
  const lines: string[] = [];
  const logger = createLogger('info', (l) => void lines.push(l), 'text');
  // Pebble's certificates live five years (1,826 days): the clock starts 1,216 days on, so renewal (with a third
  // left, after 1,217.3 days) is hours away, but more than a day after the first order (no order twice a day).
  const clock = new ManualClock(Date.now() + 1_216 * 86_400_000);
  let p: TestPharos | null = null;
  try {
    p = await startTestPharos(
      {
        listen: `127.0.0.1:${httpsPort}`,
        public_url: `https://pharos.test:${httpsPort}`,
        storage: { prune_interval_minutes: 1440 },
        tls: { acme: { email: 'ops@pharos.test', domains: ['pharos.test'], directory: pebble.directory }, http_listen: `127.0.0.1:${httpPort}`, hsts_max_age_seconds: 31_536_000 },
      },
      clock,
      logger,
    );
    const acme = p.tls!.acme!;
    await acme.settled();
    const root = await pebble.root();
    assert.ok(lines.some((l) => /tls: certificate for pharos\.test issued by 127\.0\.0\.1:\d+ \(http-01\), valid until/.test(l)), lines.join('\n'));

    // Served with the issued chain, verified against pebble's root only; HSTS as configured.
    const home = await httpsGet(httpsPort, 'pharos.test', '/healthz', root);
    assert.equal(home.status, 200);
    assert.match(home.cert.subjectaltname ?? '', /DNS:pharos\.test/);
    assert.equal(home.headers['strict-transport-security'], 'max-age=31536000');
    const key = statSync(join(p.dataDir, 'tls', 'certs', 'pharos.test.key'));
    assert.equal(key.mode & 0o777, 0o600);
    assert.equal(statSync(join(p.dataDir, 'tls', 'account.key')).mode & 0o777, 0o600);

    // A status page's own hostname: certificate at its first visit; the page is served over it.
    const page = await httpsGet(httpsPort, 'pharos.test', '/v2/statuspages', root, { name: 'Custom', subdomain: 'custom', hostname: 'status.custom.test' });
    assert.equal(page.status, 201, page.body);
    const visit = await httpsGet(httpsPort, 'status.custom.test', '/', root);
    assert.equal(visit.status, 200);
    assert.match(visit.cert.subjectaltname ?? '', /DNS:status\.custom\.test/);

    // A name no page and no config names: the handshake fails and no order is placed.
    const before = orders(pebble);
    await assert.rejects(httpsGet(httpsPort, 'stranger.test', '/', root));
    assert.equal(orders(pebble), before);
    assert.equal(existsSync(join(p.dataDir, 'tls', 'certs', 'stranger.test.crt')), false);

    // Plain HTTP: a 308 to the same path over HTTPS.
    const plain = await httpGet(httpPort, 'pharos.test', '/api/v1/monitors?x=1');
    assert.equal(plain.status, 308);
    assert.equal(plain.headers.location, `https://pharos.test:${httpsPort}/api/v1/monitors?x=1`);

    // Renewal once less than a third of the lifetime is left, on the injected clock.
    const first = home.cert.raw.toString('base64');
    const due = renewalDueMs({ notBeforeMs: Date.parse(home.cert.valid_from), notAfterMs: Date.parse(home.cert.valid_to) });
    assert.ok(due > clock.now(), 'the clock starts before renewal is due');
    await clock.advance(due - clock.now() - 3_600_000, () => acme.settled());
    assert.equal((await httpsGet(httpsPort, 'pharos.test', '/healthz', root)).cert.raw.toString('base64'), first, 'not renewed an hour early');
    await clock.advance(2 * 3_600_000, () => acme.settled());
    const renewed = await httpsGet(httpsPort, 'pharos.test', '/healthz', root);
    assert.notEqual(renewed.cert.raw.toString('base64'), first);
    assert.ok(lines.some((l) => l.includes('tls: certificate for pharos.test renewed')), lines.join('\n'));
    assert.ok(lines.some((l) => l.includes('tls: certificate for status.custom.test renewed')), 'the page hostname is renewed too');
  } finally {
    await p?.cleanup();
    await pebble.close();
  }
});

// On both stores: the failure notice is a store write (a procedure the PostgreSQL store host must know).
test('ACME over TLS-ALPN-01 (pebble): issued on the HTTPS port alone; a name that fails is logged and raises a notice', async () => {
  const httpsPort = await freePort();
  const pebble = await startPebble({ httpPort: 9, tlsPort: httpsPort, dnsPort: dns.port });
  setDefaultCACertificates([...getCACertificates('default'), pebble.listenerCa]);
  const lines: string[] = [];
  let p: TestPharos | null = null;
  try {
    p = await startTestPharos(
      {
        listen: `127.0.0.1:${httpsPort}`,
        channels: [{ name: 'ops', type: 'webhook', url: 'http://127.0.0.1:9/hook' }],
        tls: { acme: { email: 'ops@pharos.test', domains: ['alpn.test', 'nx-broken.test'], directory: pebble.directory, challenge: 'tls-alpn-01' } },
      },
      new ManualClock(Date.now()),
      createLogger('info', (l) => void lines.push(l), 'text'),
    );
    await p.tls!.acme!.settled();
    // A name that cannot be validated (the DNS answers NXDOMAIN): one error line, an operator notice on the flood guard's channels.
    assert.ok(lines.some((l) => l.includes('tls: obtaining the certificate for nx-broken.test from') && l.includes('next try in 60 min')), lines.join('\n'));
    const notices = (await p.store.async.alerts.all()).filter((a) => a.kind === 'notice');
    assert.ok(notices.some((n) => n.channel === 'ops' && (JSON.parse(n.message) as { subject: { key: string } }).subject.key === 'tls:failed:nx-broken.test'), JSON.stringify(notices));
    const answer = await httpsGet(httpsPort, 'alpn.test', '/healthz', await pebble.root());
    assert.equal(answer.status, 200);
    assert.match(answer.cert.subjectaltname ?? '', /DNS:alpn\.test/);
    assert.equal(answer.headers['strict-transport-security'], undefined, 'no HSTS unless opted in');
    assert.equal(p.tls!.httpPort(), null);
  } finally {
    await p?.cleanup();
    await pebble.close();
  }
});

test('certificate files: served, reloaded when they change, a broken pair keeps the previous one; redirect off serves plain HTTP', { skip: ONCE_IN_SQLITE_RUN }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pharos-tls-files-'));
  const ca = testCa(dir);
  const one = ca.leaf('one', 'DNS:files.test', -1, 30);
  writeFileSync(join(dir, 'site.crt'), one.cert);
  writeFileSync(join(dir, 'site.key'), one.key);
  const lines: string[] = [];
  const httpPort = await freePort();
  let p: TestPharos | null = null;
  try {
    // Files that are not a pair: start-up ends with one line naming them.
    await assert.rejects(startTestPharos({ tls: { cert: join(dir, 'site.crt'), key: join(dir, 'ca.key') } }), /tls: cannot use .*site\.crt and .*ca\.key: /);
    p = await startTestPharos({ tls: { cert: join(dir, 'site.crt'), key: join(dir, 'site.key'), http_listen: `127.0.0.1:${httpPort}`, redirect: false } }, new ManualClock(), createLogger('info', (l) => void lines.push(l), 'text'));
    assert.match(p.url, /^https:/);
    const a = await httpsGet(p.port, 'files.test', '/healthz', ca.cert);
    assert.equal(a.status, 200);
    assert.equal(a.headers['strict-transport-security'], undefined);
    assert.equal(a.cert.serialNumber, serial(one.cert));
    assert.equal((await httpGet(httpPort, 'files.test', '/healthz')).status, 200, 'redirect: false serves plain HTTP');

    // Half a pair (a new certificate whose key is not there yet): logged, the old pair still served.
    const two = ca.leaf('two', 'DNS:files.test', -1, 60);
    writeFileSync(join(dir, 'site.crt'), two.cert);
    await waitFor('the mismatch logged', async () => lines.some((l) => l.includes('changed but cannot be used')));
    assert.equal((await httpsGet(p.port, 'files.test', '/healthz', ca.cert)).cert.serialNumber, serial(one.cert));
    writeFileSync(join(dir, 'site.key'), two.key);
    await waitFor('the new certificate served', async () => (await httpsGet(p!.port, 'files.test', '/healthz', ca.cert)).cert.serialNumber === serial(two.cert));
    assert.ok(lines.some((l) => l.includes('tls: certificate reloaded from')), lines.join('\n'));
  } finally {
    await p?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
});
