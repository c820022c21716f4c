import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { PROTOCOLS } from '../../../src/domain/monitor.ts';
import { createProbes } from '../../../src/engine/probes/index.ts';
import type { ProbeSpec } from '../../../src/engine/probes/types.ts';
import { tempDir } from '../../support/pharos.ts';
import { pick, probeContract, specOf } from '../../support/probe-contract.ts';

const SEED = ['http', 'port', 'icmp'] as const;

// Every probe against real listeners on 127.0.0.1. No timing asserts: only outcomes.
const probes = createProbes({ userAgent: 'pharos-test' });
const servers: Array<{ close(): unknown }> = [];
after(async () => {
  for (const s of servers) (s as Server).closeAllConnections?.(), s.close();
  await Promise.all(Object.values(probes).map((p) => p.close()));
});

const listen = async <S extends Server | ReturnType<typeof createTcpServer>>(s: S): Promise<number> => {
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  return (s.address() as AddressInfo).port;
};
const closedPort = async () => {
  const s = createTcpServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
};
const spec = specOf;

let lastRequest: { method: string; headers: IncomingMessage['headers']; body: string } | null = null;
let httpPort = 0;
before(async () => {
  httpPort = await listen(
    createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        lastRequest = { method: req.method!, headers: req.headers, body };
        const u = new URL(req.url!, 'http://x');
        if (u.pathname === '/redirect') return res.writeHead(302, { Location: '/ok' }).end();
        if (u.pathname === '/loop') return res.writeHead(302, { Location: '/loop' }).end();
        if (u.pathname === '/chain') return res.writeHead(302, { Location: `/chain?n=${Number(u.searchParams.get('n') ?? 0) + 1}` }).end();
        if (u.pathname === '/hang') return; // never answers
        if (u.pathname === '/big') return res.writeHead(200, { 'Content-Type': 'text/plain' }).end('x'.repeat(3 * 1024 * 1024) + ' tail');
        if (u.pathname === '/cut') {
          // Headers and part of the body, then the connection is cut.
          res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': '100' });
          res.write('partial');
          return void setImmediate(() => res.socket?.destroy());
        }
        const status = Number(u.searchParams.get('status') ?? 200);
        res.writeHead(status, { 'Content-Type': 'text/plain' }).end(u.searchParams.get('body') ?? 'all ok');
      });
    }),
  );
});
const url = (path: string) => `http://127.0.0.1:${httpPort}${path}`;

describe('contract (house rule 1)', () => {
  const fixtures = {
    http: { pass: async () => spec({ url: url('/ok') }), fail: async () => spec({ url: `http://127.0.0.1:${await closedPort()}/` }) },
    port: {
      pass: async () => spec({ url: '127.0.0.1', protocol: 'port', port: await listen(createTcpServer((s) => s.end())) }),
      fail: async () => spec({ url: '127.0.0.1', protocol: 'port', port: await closedPort() }),
    },
    icmp: { pass: async () => spec({ url: '127.0.0.1', protocol: 'icmp' }), fail: async () => spec({ url: 'down.invalid', protocol: 'icmp', timeoutSeconds: 2 }) },
  } as const;
  for (const p of SEED) probeContract(p, () => probes[p], fixtures[p]);

  test('every registered protocol runs the contract: the seed here, the others in src/protocols/<name>/<name>.test.ts', () => {
    for (const p of PROTOCOLS) {
      if ((SEED as readonly string[]).includes(p)) continue;
      const file = fileURLToPath(new URL(`../../../src/protocols/${p}/${p}.test.ts`, import.meta.url));
      assert.ok(existsSync(file), `${p} has a test file beside it`);
      assert.match(readFileSync(file, 'utf8'), new RegExp(`probeContract\\('${p}'`), `${p}'s tests run the probe contract`);
    }
  });
});

describe('http probe', () => {
  const check = (s: ProbeSpec) => probes.http.check(s);
  test('status rules', async () => {
    assert.deepEqual(pick(await check(spec({ url: url('/?status=503') }))), { ok: false, statusCode: 503, reason: 'Expected 2xx, got 503' });
    assert.equal((await check(spec({ url: url('/?status=404'), expected_status_code: '404' }))).ok, true);
    assert.equal((await check(spec({ url: url('/?status=204'), expected_status_code: '200-204' }))).ok, true);
  });
  test('keyword present and absent (case-sensitive)', async () => {
    assert.equal((await check(spec({ url: url('/?body=status%20ok'), required_keyword: 'ok' }))).ok, true);
    assert.deepEqual(pick(await check(spec({ url: url('/?body=status%20OK'), required_keyword: 'ok' }))), { ok: false, statusCode: 200, reason: 'Keyword "ok" not found' });
  });
  test('redirects: judged as-is without follow, followed to the end with it, loops and chains over 10 refused', async () => {
    const noFollow = await check(spec({ url: url('/redirect'), follow_redirects: false, expected_status_code: '1xx-3xx' }));
    assert.deepEqual(pick(noFollow), { ok: true, statusCode: 302, reason: null });
    assert.deepEqual(pick(await check(spec({ url: url('/redirect'), follow_redirects: false }))), { ok: false, statusCode: 302, reason: 'Expected 2xx, got 302' });
    assert.deepEqual(pick(await check(spec({ url: url('/redirect') }))), { ok: true, statusCode: 200, reason: null });
    assert.equal((await check(spec({ url: url('/loop') }))).reason, 'Redirect loop');
    assert.equal((await check(spec({ url: url('/chain') }))).reason, 'Too many redirects');
  });
  test('method, headers and body reach the target', async () => {
    const r = await check(spec({ url: url('/ok'), http_method: 'POST', request_headers: [{ name: 'X-Token', value: 'abc' }], request_body: '{"ping":1}' }));
    assert.equal(r.ok, true);
    assert.equal(lastRequest?.method, 'POST');
    assert.equal(lastRequest?.headers['x-token'], 'abc');
    assert.equal(lastRequest?.headers['user-agent'], 'pharos-test');
    assert.equal(lastRequest?.body, '{"ping":1}');
  });
  test('the body, read or dropped: a body over the 2 MiB read limit passes (dropped past it; a keyword is sought in what was read); a body cut after the headers fails with the status kept', async () => {
    assert.deepEqual(pick(await check(spec({ url: url('/big') }))), { ok: true, statusCode: 200, reason: null });
    assert.deepEqual(pick(await check(spec({ url: url('/big'), required_keyword: 'xxx' }))), { ok: true, statusCode: 200, reason: null });
    assert.deepEqual(pick(await check(spec({ url: url('/big'), required_keyword: 'tail' }))), { ok: false, statusCode: 200, reason: 'Keyword "tail" not found' });
    const cut = await check(spec({ url: url('/cut') }));
    const cutKeyword = await check(spec({ url: url('/cut'), required_keyword: 'partial' }));
    assert.equal(cut.ok, false);
    assert.equal(cut.statusCode, 200);
    assert.ok(cut.reason, 'a reason is given');
    assert.deepEqual(pick(cut), pick(cutKeyword), 'the same outcome whether the body is read (keyword) or dropped');
  });
  test('connection refused and timeout', async () => {
    assert.deepEqual(pick(await check(spec({ url: `http://127.0.0.1:${await closedPort()}/` }))), { ok: false, statusCode: 0, reason: 'Connection refused' });
    assert.deepEqual(pick(await check(spec({ url: url('/hang'), timeoutSeconds: 1 }))), { ok: false, statusCode: 0, reason: 'Timeout after 1 s' });
  });
  test('HTTPS: a self-signed certificate fails with a TLS error, and reports no expiry', async () => {
    const dir = tempDir();
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '30', '-subj', '/CN=localhost', '-keyout', join(dir, 'k.pem'), '-out', join(dir, 'c.pem')], { stdio: 'ignore' });
    const port = await listen(createHttpsServer({ key: readFileSync(join(dir, 'k.pem')), cert: readFileSync(join(dir, 'c.pem')) }, (_, res) => res.end('ok')));
    const r = await check(spec({ url: `https://127.0.0.1:${port}/` }));
    assert.equal(r.ok, false);
    assert.match(r.reason ?? '', /^TLS error: /);
    assert.equal(r.sslExpirationDays, null, 'no expiry is read from a handshake that was refused');
  });
});

describe('tcp and icmp probes', () => {
  test('tcp: refused names the cause', async () => {
    assert.deepEqual(pick(await probes.port.check(spec({ url: '127.0.0.1', protocol: 'port', port: await closedPort() }))), { ok: false, statusCode: 0, reason: 'Connection refused' });
  });
  test('icmp: an unresolvable name names the DNS failure', async () => {
    const r = await probes.icmp.check(spec({ url: 'down.invalid', protocol: 'icmp', timeoutSeconds: 2 }));
    assert.deepEqual(pick(r), { ok: false, statusCode: 0, reason: 'DNS lookup failed for down.invalid' });
  });
});


describe('probe.source_address', () => {
  test('HTTP and TCP checks leave from the configured local address', async () => {
    const seen: string[] = [];
    const port = await listen(
      createServer((req, res) => {
        seen.push(req.socket.remoteAddress!);
        res.end('ok');
      }),
    );
    const tcpSeen: string[] = [];
    const tcpPort = await listen(createTcpServer((s) => (tcpSeen.push(s.remoteAddress!), s.end())));
    const from = createProbes({ userAgent: 'pharos-test', sourceAddress: '127.0.0.3' });
    try {
      assert.equal((await from.http.check(spec({ url: `http://127.0.0.1:${port}/` }))).ok, true);
      assert.equal((await from.port.check(spec({ url: '127.0.0.1', protocol: 'port', port: tcpPort }))).ok, true);
    } finally {
      await Promise.all(Object.values(from).map((p) => p.close()));
    }
    assert.deepEqual(seen, ['127.0.0.3']);
    assert.deepEqual(tcpSeen, ['127.0.0.3']);
  });
});
