import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createProbes } from '../../engine/probes/index.ts';
import { startTestPharos, type TestPharos } from '../../../test/support/pharos.ts';
import { upDownRecover } from '../../../test/support/monitor-flow.ts';
import { pick, specOf } from '../../../test/support/probe-contract.ts';

// HTTP assertions and the degraded threshold against a real JSON target on 127.0.0.1 (the http
// contract runs with the seed's in test/unit/engine/probes.test.ts).
let server: Server;
let base = '';
let health = { status: 'UP', checks: [{ name: 'db', ok: true }] };
let delayMs = 0;
before(async () => {
  server = createServer((req, res) => {
    const send = () => {
      if (req.url === '/text') return res.writeHead(200, { 'Content-Type': 'text/plain' }).end('fatal error in module');
      res.writeHead(200, { 'Content-Type': 'application/json', 'X-Version': '2.1.0' }).end(JSON.stringify(health));
    };
    if (delayMs > 0) setTimeout(send, delayMs);
    else send();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

describe('http assertions (probe)', () => {
  const probes = createProbes({ userAgent: 'pharos-test' });
  after(() => probes.http.close());
  const check = async (assertions: unknown[], path = '/') => pick(await probes.http.check(specOf({ url: base + path, assertions })));

  test('JSONPath equals, contains, exists; the reason shows the value found', async () => {
    health = { status: 'UP', checks: [{ name: 'db', ok: true }] };
    assert.deepEqual(await check([{ source: 'json', path: '$.status', op: 'equals', value: 'UP' }, { source: 'json', path: '$.checks[*].name', op: 'equals', value: 'db' }]), { ok: true, statusCode: 200, reason: null });
    health = { status: 'DOWN', checks: [] };
    assert.deepEqual(await check([{ source: 'json', path: '$.status', op: 'equals', value: 'UP' }]), { ok: false, statusCode: 200, reason: 'JSON $.status was "DOWN"' });
    assert.equal((await check([{ source: 'json', path: '$.checks[0].name', op: 'exists' }])).reason, 'JSON $.checks[0].name not found');
    assert.equal((await check([{ source: 'json', path: '$.status', op: 'matches', value: '^(UP|DOWN)$' }])).ok, true);
  });
  test('header present / equals, body does not contain, response time limit', async () => {
    health = { status: 'UP', checks: [] };
    assert.equal((await check([{ source: 'header', path: 'x-version', op: 'matches', value: '^2\\.' }])).ok, true);
    assert.equal((await check([{ source: 'header', path: 'X-Missing', op: 'exists' }])).reason, 'Header X-Missing missing');
    assert.equal((await check([{ source: 'header', path: 'X-Version', op: 'equals', value: '3.0.0' }])).reason, 'Header X-Version was "2.1.0"');
    assert.equal((await check([{ source: 'body', op: 'not_contains', value: 'error' }], '/text')).reason, 'Body contains "error"');
    assert.equal((await check([{ source: 'body', op: 'not_contains', value: 'error' }])).ok, true);
    delayMs = 30;
    try {
      assert.match((await check([{ source: 'response_time', op: 'lt', value: 5 }])).reason ?? '', /^Response time \d+ ms, limit 5 ms$/);
    } finally {
      delayMs = 0;
    }
  });
  test('a passing check slower than degraded_after_ms is degraded, not down', async () => {
    delayMs = 30;
    try {
      const o = await probes.http.check(specOf({ url: base + '/', degraded_after_ms: 5 }));
      assert.equal(o.ok, true);
      assert.equal(o.degraded, true);
    } finally {
      delayMs = 0;
    }
    assert.equal((await probes.http.check(specOf({ url: base + '/', degraded_after_ms: 5_000 }))).degraded, undefined);
  });
});

describe('http assertions (a monitor over the API)', () => {
  let p: TestPharos;
  before(async () => (p = await startTestPharos()));
  after(() => p.cleanup());

  test('JSON $.status was "DOWN" opens an outage; "UP" again recovers it', async () => {
    health = { status: 'UP', checks: [] };
    await upDownRecover(p, { name: 'API health', url: `${base}/health`, assertions: [{ source: 'json', path: '$.status', op: 'equals', value: 'UP' }] }, {
      breakIt: () => void (health = { status: 'DOWN', checks: [] }),
      reason: 'JSON $.status was "DOWN"',
      fixIt: () => void (health = { status: 'UP', checks: [] }),
    });
  });

  test('a slow but passing monitor shows "Degraded performance" on its status page, and operational once fast again', async () => {
    health = { status: 'UP', checks: [] };
    const m = await (await p.api('/v1/monitors', { method: 'POST', json: { name: 'Slow API', url: `${base}/slow`, check_frequency: 10, degraded_after_ms: 250 } })).json();
    const sp = await p.api('/v2/statuspages', { method: 'POST', json: { name: 'Perf', subdomain: 'perf', sections: [{ name: 'S', services: [{ monitor_uuid: m.uuid }] }] } });
    assert.equal(sp.status, 201, await sp.clone().text());
    const page = async () => (await fetch(`${p.url}/status/perf`)).text();
    const next = async () => p.advance(p.scheduler.nextDueAt(p.store.monitors.get(m.uuid)!.id)! - p.clock.now());
    delayMs = 500;
    try {
      await next();
    } finally {
      delayMs = 0;
    }
    await p.core.checks.flush();
    assert.equal((await (await p.api(`/v1/monitors/${m.uuid}`)).json()).status, 'up', 'degraded is not down');
    assert.match(await page(), /data-status="degraded"[^>]*>[\s\S]*?Degraded performance/);
    await next();
    await p.core.checks.flush();
    assert.doesNotMatch(await page(), /data-status="degraded"/);
  });
});
