import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DESCRIPTORS_EXHAUSTED_REASON, DescriptorBudget, checkSlotsFor, isDescriptorExhaustion, isDescriptorExhaustionReason, openFileLimit } from '../../../src/engine/connections.ts';
import { describeNetworkError } from '../../../src/protocols/errors.ts';
import { createProbes } from '../../../src/engine/probes/index.ts';
import { CheckWheel } from '../../../src/engine/wheel.ts';
import { PROTOCOLS, type Protocol } from '../../../src/domain/monitor.ts';
import { protocolDefinition } from '../../../src/protocols/index.ts';
import { ManualClock } from '../../support/manual-clock.ts';
import type { Probe } from '../../../src/protocols/types.ts';
import type { CheckOutcome } from '../../../src/domain/check.ts';

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max processes             95148                95148                processes
Max open files            1024                 4096                 files
Max locked memory         8388608              8388608              bytes
`;

describe('descriptor limits (issue 21)', () => {
  test('the soft nofile limit is read from /proc/self/limits text; unlimited or missing is undefined', () => {
    assert.equal(openFileLimit(LIMITS), 1024);
    assert.equal(openFileLimit(LIMITS.replace('1024   ', 'unlimited')), undefined);
    assert.equal(openFileLimit('nothing here'), undefined);
    assert.ok((openFileLimit() ?? Infinity) > 0, 'this process has a readable limit');
  });

  test('checks in flight leave a quarter of the limit (at least 32) free, and at least 4 slots', () => {
    assert.equal(checkSlotsFor(1024, 24), 1024 - 24 - 256);
    assert.equal(checkSlotsFor(100, 10), 100 - 10 - 32);
    assert.equal(checkSlotsFor(40, 30), 4);
    assert.equal(checkSlotsFor(undefined, 10), Infinity);
  });

  test('EMFILE and ENFILE anywhere in the cause chain are Pharos’s, with their own reason', () => {
    const wrapped = Object.assign(new Error('fetch failed'), { cause: Object.assign(new Error('connect EMFILE'), { code: 'EMFILE' }) });
    assert.equal(isDescriptorExhaustion(wrapped), true);
    assert.equal(isDescriptorExhaustion(Object.assign(new Error('x'), { code: 'ECONNREFUSED' })), false);
    const reason = describeNetworkError(wrapped, 'example.com', 10);
    assert.equal(reason, `${DESCRIPTORS_EXHAUSTED_REASON} (EMFILE)`);
    assert.equal(isDescriptorExhaustionReason(reason), true);
    assert.equal(isDescriptorExhaustionReason('Connection refused'), false);
  });

  test('the budget shrinks below the checks in flight on exhaustion (first time reported) and grows back with clean checks', () => {
    const b = new DescriptorBudget(100);
    assert.equal(b.exhausted(80), true);
    assert.equal(b.capacity, 60);
    assert.equal(b.exhausted(60), false);
    assert.equal(b.capacity, 45);
    for (let i = 0; i < 64 * 3; i++) b.clean();
    assert.equal(b.capacity, 48);
  });
});

describe('the wheel and descriptor exhaustion', () => {
  test('a check failing with EMFILE is retried, never handed on as a failure, and counted', async () => {
    const clock = new ManualClock();
    let calls = 0;
    const flaky: Probe = {
      async check(): Promise<CheckOutcome> {
        calls++;
        if (calls <= 2) return { ok: false, latencyMs: 1, statusCode: 0, reason: `${DESCRIPTORS_EXHAUSTED_REASON} (EMFILE)` };
        return { ok: true, latencyMs: 1, statusCode: 200, reason: null };
      },
      async close() {},
    };
    const results: CheckOutcome[] = [];
    let exhausted = 0;
    const warnings: string[] = [];
    const logger = { info() {}, debug() {}, error() {}, warn: (m: string) => warnings.push(m) };
    const wheel = new CheckWheel<number>({
      clock,
      logger: logger as never,
      probes: Object.fromEntries(PROTOCOLS.map((p) => [p, flaky])) as Record<Protocol, Probe>,
      metrics: { checkDone() {}, schedulerLag() {}, descriptorsExhausted: () => exhausted++ },
      maxConcurrentChecks: 10,
      descriptors: new DescriptorBudget(10),
      onResult: (r) => results.push(r.outcome),
    });
    wheel.upsert(1, { spec: { protocol: 'http' } as never, frequencyMs: 60_000, tag: 1 }, clock.now());
    clock.advance(0);
    await wheel.settled();
    await wheel.stop();
    assert.equal(calls, 3);
    assert.deepEqual(results.map((r) => r.ok), [true], 'only the successful attempt is reported');
    assert.equal(exhausted, 2);
    assert.equal(warnings.length, 1, 'logged once');
  });
});

/** An HTTP check of `url` with the protocol's defaults, redirects not followed, plus `settings`. */
const httpSpec = (url: string, timeoutSeconds = 5, settings: Record<string, unknown> = {}) =>
  ({ protocol: 'http', target: { url }, timeoutSeconds, settings: { ...protocolDefinition('http').defaults, follow_redirects: false, ...settings } }) as never;

describe('the HTTP probe connection policy', () => {
  const server = createServer((req, res) => {
    req.resume();
    res.end('ok');
  });
  server.keepAliveTimeout = 60_000;
  // Checks here follow one another within a busy origin's window (4 s), where the probe would keep
  // the connection for the next check (src/protocols/http/keep-alive.test.ts covers that policy on a
  // test clock); these are about what a check does with a connection of its own.
  const probes = createProbes({ userAgent: 'pharos-test', httpKeepAlive: false });
  after(async () => {
    server.closeAllConnections();
    server.close();
    await Promise.all(Object.values(probes).map((p) => p.close()));
  });

  test('a check that keeps no connection opens its own and closes it after, though the server would keep it', async () => {
    let open = 0;
    let opened = 0;
    server.on('connection', (s) => {
      open++;
      opened++;
      s.once('close', () => open--);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const spec = httpSpec(url);
    for (let i = 0; i < 3; i++) {
      const out = await probes.http.check(spec);
      assert.equal(out.ok, true, out.reason ?? '');
      // Closed by Pharos after the response, though the server would keep it 60 s.
      for (let t = 0; open > 0 && t < 200; t++) await new Promise((r) => setImmediate(r));
      assert.equal(open, 0, `no socket left open after check ${i + 1}`);
    }
    assert.equal(opened, 3, 'one fresh connection per check');
  });

  test('stack traces are on again after each check: the probe turns them off only while undici finishes a response', async () => {
    const limit = Error.stackTraceLimit;
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const refused = await new Promise<string>((r) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const u = `http://127.0.0.1:${(s.address() as AddressInfo).port}/`;
        s.close(() => r(u));
      });
    });
    const ok = await probes.http.check(httpSpec(url));
    assert.equal(ok.ok, true, ok.reason ?? '');
    assert.equal(Error.stackTraceLimit, limit, 'limit restored after a response');
    const down = await probes.http.check(httpSpec(refused));
    assert.equal(down.ok, false);
    assert.match(down.reason ?? '', /refused/i);
    assert.equal(Error.stackTraceLimit, limit, 'limit restored after a failed connection');
    assert.match(new Error('here').stack ?? '', /\n\s+at /, 'a new error still has its stack');
  });

  test('the check’s timeout also covers reading the body: a body that stalls after the headers times out', async () => {
    const stall = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial');
    });
    await new Promise<void>((r) => stall.listen(0, '127.0.0.1', () => r()));
    try {
      const url = `http://127.0.0.1:${(stall.address() as AddressInfo).port}/`;
      const out = await probes.http.check(httpSpec(url, 1, { required_keyword: 'done' }));
      assert.equal(out.ok, false);
      assert.equal(out.reason, 'Timeout after 1 s');
    } finally {
      stall.closeAllConnections();
      stall.close();
    }
  });
});
