import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';

// 1,000 random bodies against create and update: every answer is a 2xx or a 4xx with {error}, never a 500.
let p: TestPharos;
before(async () => {
  p = await startTestPharos();
});
after(() => p.cleanup());

/** Mulberry32: a seeded generator so a failing body can be reproduced from the printed seed. */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FIELDS = ['name', 'url', 'protocol', 'http_method', 'check_frequency', 'regions', 'expected_status_code', 'required_keyword', 'follow_redirects', 'port', 'paused', 'alerts_wait', 'request_body', 'request_headers', 'timeout', 'escalation_policy', 'junk'];
const GOOD: Record<string, unknown[]> = {
  name: ['x', 'Site ✓', ''],
  url: ['http://127.0.0.1:9/', 'https://example.invalid/a?b=c', '127.0.0.1', 'tcp://127.0.0.1:22', 'not a url', 'ftp://x'],
  protocol: ['http', 'port', 'icmp', 'gopher'],
  http_method: ['GET', 'POST', 'get'],
  check_frequency: [10, 30, 86400, 15, -1],
  regions: [['london'], ['paris', 'tokyo'], [], ['atlantis']],
  expected_status_code: ['2xx', '1xx-3xx', 200, '200-204', '9xx', 99],
  port: [1, 65535, 0, 70000, 3.5],
  alerts_wait: [-1, 0, 60, 7],
  timeout: [1, 10, 60, 61],
  request_headers: [[{ name: 'X-A', value: 'b' }], [{ name: 'bad name', value: '' }], [{}]],
  escalation_policy: ['none', 'ep_missing', null],
};

function randomValue(r: () => number, depth = 0): unknown {
  const k = Math.floor(r() * 11);
  switch (k) {
    case 0: return null;
    case 1: return r() < 0.5;
    case 2: return Math.floor(r() * 2 ** 31) * (r() < 0.5 ? -1 : 1);
    case 3: return r() * 1e308;
    case 4: return '';
    case 5: return String.fromCharCode(...Array.from({ length: Math.floor(r() * 40) }, () => Math.floor(r() * 0xd7ff)));
    case 6: return 'x'.repeat(Math.floor(r() * 5000));
    case 7: return depth < 3 ? Array.from({ length: Math.floor(r() * 4) }, () => randomValue(r, depth + 1)) : [];
    case 8: return depth < 3 ? Object.fromEntries(Array.from({ length: Math.floor(r() * 4) }, () => [FIELDS[Math.floor(r() * FIELDS.length)]!, randomValue(r, depth + 1)])) : {};
    case 9: return '1e400';
    default: return '__proto__';
  }
}

function randomBody(r: () => number): string {
  const mode = r();
  if (mode < 0.05) return ['', '{', 'null', '[]', '"str"', '123', '{"a":}', '\u0000'][Math.floor(r() * 8)]!;
  const obj: Record<string, unknown> = {};
  if (mode < 0.25) {
    // A valid body: the first (valid) value of a random subset of fields.
    for (const [f, values] of Object.entries(GOOD)) if (r() < 0.5) obj[f] = values[0];
    return JSON.stringify({ ...obj, name: 'fuzz', url: 'http://127.0.0.1:9/', protocol: 'http' });
  }
  for (const f of FIELDS) {
    if (r() < 0.5) continue;
    const good = GOOD[f];
    obj[f] = good && r() < 0.6 ? good[Math.floor(r() * good.length)] : randomValue(r);
  }
  // Some bodies carry a valid name and url so the other fields' rules are reached too.
  if (r() < 0.4) Object.assign(obj, { name: 'fuzz', url: 'http://127.0.0.1:9/' });
  if (r() < 0.1) return JSON.stringify(obj).replace('{', '{"__proto__":{"polluted":1},');
  return JSON.stringify(obj);
}

test('1,000 random create/update bodies never give a 500', async () => {
  const seed = Number(process.env.FUZZ_SEED ?? 20261123);
  const r = rng(seed);
  const existing = await (await p.api('/v1/monitors', { method: 'POST', json: { name: 'target', url: 'http://127.0.0.1:9/' } })).json();
  const counts: Record<number, number> = {};
  const bodies = Array.from({ length: 1000 }, () => randomBody(r));
  for (let i = 0; i < bodies.length; i += 25) {
    await Promise.all(
      bodies.slice(i, i + 25).map(async (body, j) => {
        const put = (i + j) % 3 === 0;
        const res = await p.api(put ? `/v1/monitors/${existing.uuid}` : '/v1/monitors', { method: put ? 'PUT' : 'POST', body, headers: { 'Content-Type': 'application/json' } });
        counts[res.status] = (counts[res.status] ?? 0) + 1;
        const text = await res.text();
        assert.ok(res.status < 500, `seed ${seed}, body #${i + j}: ${res.status} ${text}\n${body.slice(0, 500)}`);
        if (res.status >= 400) {
          const err = JSON.parse(text);
          assert.equal(typeof err.error, 'string', text);
          assert.ok(err.error.length > 0);
        } else {
          assert.match(JSON.parse(text).uuid, /^mon_/);
        }
      }),
    );
  }
  assert.ok((counts[400] ?? 0) > 300, `most random bodies are refused: ${JSON.stringify(counts)}`);
  assert.ok(((counts[201] ?? 0) + (counts[200] ?? 0)) > 0, `some random bodies are valid: ${JSON.stringify(counts)}`);
  // Nothing half-written: every stored monitor reads back whole.
  const list = await (await p.api('/v1/monitors')).json();
  assert.equal(list.length, 1 + (counts[201] ?? 0));
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

const OTHER_FIELDS = [
  'name', 'period_value', 'period_type', 'grace_period_value', 'grace_period_type', 'cron', 'timezone', 'escalation_policy',
  'description', 'severity', 'escalationPolicyUuid', 'summary', 'message',
  'start_date', 'end_date', 'monitors', 'statuspages', 'title', 'updates', 'notificationOption', 'notificationMinutes',
  'type', 'affectedComponents', 'text', 'date', 'status',
];
const OTHER_GOOD: Record<string, unknown[]> = {
  period_value: [1, 0, -3, 1.5], period_type: ['hours', 'weeks'], grace_period_value: [5, 59], grace_period_type: ['minutes', 'seconds'],
  cron: ['0 2 * * *', '61 * * * *', '* * *'], timezone: ['Europe/Berlin', 'Mars/Base', '+01:00'], severity: ['major', 'meh'],
  start_date: ['2026-05-01T22:00:00Z', 'yesterday'], end_date: ['2026-05-01T23:00:00Z', '2026-05-01T21:00:00Z'],
  title: [{ en: 'x' }, {}, { xx: 'y' }, 'plain'], type: ['outage', 'resolved', 'investigating'], text: [{ de: 'x' }, null],
  notificationOption: ['none', 'sometimes'], status: ['degraded', 'on fire'], monitors: [[], ['mon_x']], updates: [[], [{}]],
};

test('600 random bodies against the other write endpoints never give a 500', async () => {
  const seed = Number(process.env.FUZZ_SEED ?? 20261124);
  const r = rng(seed);
  const hc = (await (await p.api('/v1/healthchecks', { method: 'POST', json: { name: 'h', period_value: 1, period_type: 'hours', grace_period_value: 5, grace_period_type: 'minutes' } })).json()).healthcheck;
  const outage = (await (await p.api('/v2/outages', { method: 'POST', json: { description: 'fuzz' } })).json()).outage;
  const incident = await (await p.api('/v3/incidents', { method: 'POST', json: { title: { en: 'i' }, type: 'incident' } })).json();
  const targets: Array<[string, string]> = [
    ['POST', '/v1/healthchecks'], ['PUT', `/v1/healthchecks/${hc.uuid}`], ['POST', '/v2/healthchecks'],
    ['POST', '/v2/outages'], ['POST', `/v2/outages/${outage.uuid}/acknowledge`], ['POST', `/v2/outages/${outage.uuid}/escalate`],
    ['POST', '/v1/maintenance-windows'], ['POST', '/v3/incidents'], ['PUT', `/v3/incidents/${incident.uuid}`],
    ['POST', `/v3/incidents/${incident.uuid}/updates`], ['POST', '/v1/components'],
  ];
  const statuses = new Set<number>();
  for (let i = 0; i < 600; i += 20) {
    await Promise.all(
      Array.from({ length: 20 }, async (_, j) => {
        const [method, path] = targets[(i + j) % targets.length]!;
        const obj: Record<string, unknown> = {};
        for (const f of OTHER_FIELDS) {
          if (r() < 0.6) continue;
          const good = OTHER_GOOD[f];
          obj[f] = good && r() < 0.6 ? good[Math.floor(r() * good.length)] : randomValue(r);
        }
        const body = r() < 0.05 ? '{"' : JSON.stringify(obj);
        const res = await p.api(path, { method, body, headers: { 'Content-Type': 'application/json' } });
        const text = await res.text();
        statuses.add(res.status);
        assert.ok(res.status < 500, `seed ${seed}: ${method} ${path} → ${res.status} ${text}\n${body.slice(0, 300)}`);
        if (res.status >= 400) assert.equal(typeof JSON.parse(text).error, 'string', text);
      }),
    );
  }
  assert.ok(statuses.has(400), `some bodies are refused: ${[...statuses]}`);
});
