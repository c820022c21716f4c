import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { getCACertificates, setDefaultCACertificates, type TLSSocket } from 'node:tls';
import { createProbes } from '../../engine/probes/index.ts';
import { selfSigned, testCa } from '../../../test/support/certs.ts';
import { tempDir } from '../../../test/support/pharos.ts';
import { specOf } from '../../../test/support/probe-contract.ts';
import { sessionConnector, TlsSessionCache } from './tls-sessions.ts';

// Issue 38 point 2: HTTPS checks resume TLS sessions. The observable is the target's own view of each
// connection (`isSessionReused()` on the server side of every handshake), not a timing.
const dir = tempDir();
const ca = testCa(dir);
setDefaultCACertificates([...getCACertificates('default'), ca.cert]);
const leaf = ca.leaf('target', 'IP:127.0.0.1', -1, 30);
const renewed = ca.leaf('renewed', 'IP:127.0.0.1', -1, 60);
const clientA = ca.leaf('client-a', 'DNS:client-a', -1, 30);
const clientB = ca.leaf('client-b', 'DNS:client-b', -1, 30);
const self = selfSigned(dir, 'IP:127.0.0.1');

/** An HTTPS target on 127.0.0.1 recording, per handshake, whether it resumed a session. */
interface Target {
  url: string;
  port: number;
  server: Server;
  handshakes: Array<'full' | 'resumed'>;
}
const servers: Server[] = [];
async function target(c: { key: string; cert: string }, clientCa?: string, ecdhCurve?: string): Promise<Target> {
  const server = createServer({ key: c.key, cert: c.cert, ...(clientCa ? { ca: clientCa, requestCert: true, rejectUnauthorized: true } : {}), ...(ecdhCurve ? { ecdhCurve } : {}) }, (_req, res) => void res.end('ok'));
  servers.push(server);
  const t = { server, handshakes: [] as Array<'full' | 'resumed'>, url: '', port: 0 };
  server.on('secureConnection', (s: TLSSocket) => t.handshakes.push(s.isSessionReused() ? 'resumed' : 'full'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  t.port = (server.address() as AddressInfo).port;
  t.url = `https://127.0.0.1:${t.port}/`;
  return t;
}
after(() => servers.forEach((s) => (s.closeAllConnections(), s.close())));

describe('HTTPS checks resume TLS sessions (probe)', () => {
  // Each check on a connection of its own: these checks follow one another within a busy origin's
  // window, which would otherwise keep the connection (keep-alive.test.ts).
  const probes = createProbes({ userAgent: 'pharos-test', httpKeepAlive: false });
  after(() => probes.http.close());
  let t: Target;
  before(async () => (t = await target(leaf)));

  test('the second and third check of an origin resume; the certificate expiry is still reported', async () => {
    const outcomes = [];
    for (let i = 0; i < 3; i++) outcomes.push(await probes.http.check(specOf({ url: t.url, tls_expiry_days: [7] })));
    assert.deepEqual(
      outcomes.map((o) => [o.ok, o.sslExpirationDays]),
      [
        [true, 30],
        [true, 30],
        [true, 30],
      ],
    );
    assert.deepEqual(t.handshakes, ['full', 'resumed', 'resumed']);
  });

  test('different client certificates never share a session; each resumes its own', async () => {
    const m = await target(leaf, ca.cert);
    const as = (c: { key: string; cert: string }) => probes.http.check(specOf({ url: m.url, tls_client_cert: c.cert, tls_client_key: c.key }));
    for (const c of [clientA, clientB, clientA, clientB]) assert.equal((await as(c)).ok, true);
    assert.equal((await probes.http.check(specOf({ url: m.url }))).ok, false, 'no certificate: refused, not resumed with one');
    assert.deepEqual(m.handshakes, ['full', 'full', 'resumed', 'resumed']);
  });

  test('a session made with ignore_tls_errors is never offered to a verifying check', async () => {
    const s = await target(leaf);
    for (const ignore of [true, false, true, false]) assert.equal((await probes.http.check(specOf({ url: s.url, ignore_tls_errors: ignore }))).ok, true);
    assert.deepEqual(s.handshakes, ['full', 'full', 'resumed', 'resumed'], 'the first verifying check made a full handshake');
    const selfSigned = await target(self);
    assert.equal((await probes.http.check(specOf({ url: selfSigned.url, ignore_tls_errors: true }))).ok, true);
    const strict = await probes.http.check(specOf({ url: selfSigned.url }));
    assert.deepEqual([strict.ok, strict.reason], [false, 'TLS error: DEPTH_ZERO_SELF_SIGNED_CERT']);
  });
});

describe('key exchange groups of HTTPS checks (CHECK_TLS_GROUPS)', () => {
  const probes = createProbes({ userAgent: 'pharos-test' });
  after(() => probes.http.close());

  test('a server with P-256 only is checked (X25519 first, P-256 after a retry); one with the post-quantum hybrid X25519MLKEM768 only is not: checks do not offer it', async () => {
    const p256 = await target(leaf, undefined, 'P-256');
    for (let i = 0; i < 2; i++) assert.equal((await probes.http.check(specOf({ url: p256.url }))).ok, true, `P-256 check ${i + 1}`);
    assert.deepEqual(p256.handshakes, ['full', 'resumed']);
    const hybridOnly = await target(leaf, undefined, 'X25519MLKEM768');
    const refused = await probes.http.check(specOf({ url: hybridOnly.url }));
    assert.equal(refused.ok, false, 'no common group: the handshake fails');
    assert.deepEqual(hybridOnly.handshakes, [], 'no handshake completed');
  });
});

describe('session age and bounds (tls-sessions.ts)', () => {
  test('past maxAgeMs a full handshake reads the renewed certificate, even while the server would still resume', async () => {
    const ticketKeys = randomBytes(48);
    const t = await target(leaf);
    t.server.setTicketKeys(ticketKeys);
    let nowMs = 1_000_000;
    const cache = new TlsSessionCache({ maxAgeMs: 3_600_000, now: () => nowMs });
    const connect = sessionConnector({}, cache);
    const validTo = () =>
      new Promise<string | undefined>((resolve, reject) =>
        connect({ hostname: '127.0.0.1', protocol: 'https:', port: String(t.port) }, (err, socket) => {
          if (err) return reject(err);
          const cert = (socket as TLSSocket).getPeerCertificate();
          // Read the response to its end: the session tickets (after the handshake in TLS 1.3) come before it.
          socket!.on('data', () => undefined).once('close', () => resolve(cert.valid_to));
          socket!.write('GET / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n');
        }),
      );
    const first = await validTo();
    assert.ok(first);
    // The target renews its certificate but keeps its ticket keys: it would resume old sessions.
    t.server.setSecureContext({ key: renewed.key, cert: renewed.cert });
    t.server.setTicketKeys(ticketKeys);
    nowMs += 3_000_000;
    assert.equal(await validTo(), undefined, 'resumed: no certificate shown');
    nowMs += 700_000; // 3,700 s after the full handshake, though the last ticket is 700 s old
    const third = await validTo();
    assert.ok(third && Date.parse(third) > Date.parse(first), `renewed certificate seen: ${third} after ${first}`);
    assert.deepEqual(t.handshakes, ['full', 'resumed', 'full']);
  });

  test('the cache holds at most maxEntries sessions and maxBytes bytes; when full of live sessions a new one is not kept, past maxAgeMs the least recently used goes', () => {
    let nowMs = 0;
    const cache = new TlsSessionCache({ maxEntries: 3, maxBytes: 1_000, maxAgeMs: 100, now: () => nowMs });
    for (const k of ['a', 'b', 'c']) cache.set(k, Buffer.alloc(100), false);
    cache.set('d', Buffer.alloc(100), false);
    assert.deepEqual([cache.size, cache.sizeBytes, cache.get('d')], [3, 300, undefined], 'full of live sessions: d not kept');
    // Round-robin over more origins than places: the ones held keep resuming (plain LRU would hold none at its next use).
    for (let round = 0; round < 3; round++) for (const k of ['a', 'b', 'c', 'd', 'e']) if (!cache.get(k)) cache.set(k, Buffer.alloc(100), false);
    assert.deepEqual(['a', 'b', 'c', 'd', 'e'].map((k) => cache.get(k) !== undefined), [true, true, true, false, false]);
    cache.set('a', Buffer.alloc(100), true); // a ticket from a resumed connection keeps its ancestor's time
    nowMs = 50;
    cache.set('b', Buffer.alloc(100), false); // a full handshake: b is fresh again
    nowMs = 120; // a and c are past maxAgeMs; c is the least recently used
    cache.set('f', Buffer.alloc(100), false);
    assert.deepEqual([cache.get('c'), cache.size], [undefined, 3], 'c, stale and least recently used, went for f');
    assert.ok(cache.get('f') && cache.get('b'));
    assert.equal(cache.get('a'), undefined, 'a is past maxAgeMs: not offered');
    cache.set('g', Buffer.alloc(850), false);
    assert.deepEqual([cache.get('g'), cache.sizeBytes <= 1_000], [undefined, true], 'no room in bytes among live sessions');
    nowMs = 1_000;
    cache.set('g', Buffer.alloc(850), false);
    assert.deepEqual([cache.size, cache.sizeBytes, cache.get('g')?.length], [2, 950, 850], 'a stale session (f) made room in bytes');
    cache.set('huge', Buffer.alloc(2_000), false);
    assert.equal(cache.get('huge'), undefined, 'a session larger than the whole bound is not kept');
  });
});
