import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { httpTarget, type HttpTarget } from '../support/targets.ts';
import { signIn } from '../support/console.ts';

// Issue 33 point 8: badges an <img> on another site can load (CORP cross-origin on badges only) and
// per-monitor badges (status, uptime over N days, mean response time over N hours, certificate days),
// each served only for a monitor that opted in (`public_badges`), over a seeded history.
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

/** The text of a badge SVG (badge-maker's `<title>`: "label: message"). */
async function badgeText(res: Response): Promise<string> {
  assert.equal(res.status, 200, `${res.url}: ${res.status}`);
  assert.match(res.headers.get('content-type') ?? '', /^image\/svg\+xml/);
  const svg = await res.text();
  const title = /<title>([^<]*)<\/title>/.exec(svg)?.[1];
  assert.ok(title !== undefined, 'the badge has a title');
  return title;
}

describe('badges', () => {
  let p: TestPharos;
  let target: HttpTarget;
  let opted: { uuid: string; id: number };
  let closed: string;
  const badge = (path: string, init?: RequestInit) => fetch(`${p.url}/badge/monitors/${path}`, init);

  before(async () => {
    target = await httpTarget(200);
    p = await startTestPharos();
    const create = async (json: Record<string, unknown>) => {
      const res = await p.api('/v1/monitors', { method: 'POST', json: { url: `${target.url}x`, check_frequency: 60, ...json } });
      assert.equal(res.status, 201, await res.clone().text());
      return res.json();
    };
    const m = await create({ name: 'Opted in', public_badges: true });
    assert.equal(m.public_badges, true);
    opted = { uuid: m.uuid, id: m.id };
    const c = await create({ name: 'Not opted in' });
    assert.equal(c.public_badges, false, 'off by default');
    closed = c.uuid;
    const page = await p.api('/v2/statuspages', { method: 'POST', json: { name: 'Acme', subdomain: 'acme', sections: [{ name: 'All', services: [{ monitor_uuid: opted.uuid }] }] } });
    assert.equal(page.status, 201, await page.clone().text());
  });
  after(async () => {
    await p.cleanup();
    await target.stop();
  });

  test('CORP cross-origin on badges only; per-monitor badges cacheable for a minute', async () => {
    for (const path of ['/status/acme/badge.svg', `/badge/monitors/${opted.uuid}/status.svg`, `/badge/monitors/${opted.uuid}/uptime.svg`]) {
      const res = await fetch(p.url + path);
      assert.equal(res.status, 200, path);
      assert.equal(res.headers.get('cross-origin-resource-policy'), 'cross-origin', path);
      await res.arrayBuffer();
    }
    const own = await badge(`${opted.uuid}/status.svg`);
    assert.equal(own.headers.get('cache-control'), 'public, max-age=60');
    for (const path of ['/status/acme', '/status/acme/summary.json', '/status/acme/feed.atom', '/login', '/openapi.json', '/_pharos/status.css']) {
      const res = await fetch(p.url + path);
      assert.equal(res.headers.get('cross-origin-resource-policy'), 'same-origin', path);
      await res.arrayBuffer();
    }
    const api = await p.api('/v1/monitors');
    assert.equal(api.headers.get('cross-origin-resource-policy'), 'same-origin');
    await api.arrayBuffer();
  });

  test('a monitor that has not opted in answers 404 like an unknown one; opting in and out through the API', async () => {
    const kinds = ['status.svg', 'uptime.svg?days=7', 'response-time.svg?hours=2', 'certificate.svg'];
    const answers = async (uuid: string) =>
      Promise.all(kinds.map(async (k) => { const r = await badge(`${uuid}/${k}`); return `${r.status} ${await r.text()}`; }));
    const unknown = await answers('mon_doesnotexist00000000');
    assert.ok(unknown.every((a) => a.startsWith('404 ')), unknown.join('\n'));
    assert.deepEqual(await answers(closed), unknown, 'the same answer: nothing says the monitor exists');
    const on = await p.api(`/v1/monitors/${closed}`, { method: 'PUT', json: { public_badges: true } });
    assert.equal(on.status, 200);
    assert.equal((await on.json()).public_badges, true);
    assert.ok((await answers(closed)).every((a) => a.startsWith('200 ')));
    const off = await p.api(`/v1/monitors/${closed}`, { method: 'PUT', json: { public_badges: false } });
    assert.equal(off.status, 200);
    assert.deepEqual(await answers(closed), unknown);
    const bad = await badge(`${opted.uuid}/uptime.svg?days=0`);
    assert.equal(bad.status, 400);
    assert.match(await bad.text(), /days/);
  });

  test("each badge's value over a seeded history: status follows the checks, uptime is the reports' figure, response time the mean of the checks, certificate days", async () => {
    await p.advance(2 * HOUR);
    assert.equal(await badgeText(await badge(`${opted.uuid}/status.svg`)), 'status: up');
    assert.equal(await badgeText(await badge(`${opted.uuid}/uptime.svg?days=1`)), 'uptime 1d: 100.00%');
    target.respond(500);
    await p.advance(30 * MIN);
    assert.equal(await badgeText(await badge(`${opted.uuid}/status.svg`)), 'status: down');
    target.respond(200);
    await p.advance(30 * MIN);
    assert.equal(await badgeText(await badge(`${opted.uuid}/status.svg`)), 'status: up');

    // Uptime: the reports API's SLA over the same window (one number, one function); a window never starts
    // before the monitor existed (domain/uptime.ts), as on the console and the status pages.
    const createdAt = (await p.store.async.monitors.get(opted.uuid))!.createdAt;
    for (const days of [1, 7, 30]) {
      const now = p.clock.now();
      const q = new URLSearchParams({ from: new Date(Math.max(now - days * DAY, createdAt)).toISOString(), to: new Date(now).toISOString() });
      const report = await (await p.api(`/v2/reporting/monitor-reports/${opted.uuid}?${q}`)).json();
      assert.ok(report.sla < 100, `downtime counted: ${report.sla}`);
      assert.equal(await badgeText(await badge(`${opted.uuid}/uptime.svg?days=${days}`)), `uptime ${days}d: ${report.sla.toFixed(2)}%`);
    }
    assert.equal(await badgeText(await badge(`${opted.uuid}/uptime.svg`)), await badgeText(await badge(`${opted.uuid}/uptime.svg?days=30`)), 'default: 30 days');

    // Response time: the mean latency of the checks in the last N whole hours and the current one.
    const results = await p.store.async.checks.latestResults(opted.id, 10_000);
    for (const hours of [1, 2]) {
      const since = Math.floor(p.clock.now() / HOUR) * HOUR - hours * HOUR;
      const inWindow = results.filter((r) => r.at >= since);
      assert.ok(inWindow.length > 0);
      const mean = Math.round(inWindow.reduce((s, r) => s + r.latency_ms, 0) / inWindow.length);
      assert.equal(await badgeText(await badge(`${opted.uuid}/response-time.svg?hours=${hours}`)), `response ${hours}h: ${mean} ms`);
    }

    // Certificate: the days the last check read (plain http: none).
    assert.equal(await badgeText(await badge(`${opted.uuid}/certificate.svg`)), 'certificate: none');
    for (const [days, text] of [[42, '42 days'], [1, '1 day'], [-3, 'expired']] as const) {
      await p.store.async.monitors.setSslExpiration(opted.id, days);
      assert.equal(await badgeText(await badge(`${opted.uuid}/certificate.svg`)), `certificate: ${text}`);
    }
  });

  test('the console form opts a monitor in and out (checkbox, unticked by default)', async () => {
    await p.core.accounts.create({ email: 'ada@example.com', name: 'Ada', role: 'admin', password: 'correct horse battery' }, { type: 'system', id: 'test', name: 'test' });
    const admin = await signIn(p, 'ada@example.com', 'correct horse battery');
    const form = { name: 'Console made', protocol: 'http', url: `${target.url}console`, check_frequency: '60', timeout: '5', regions: ['london'], http_method: 'GET', expected_status_code: '2xx', alerts_wait: '0' };
    const blank = await admin.get('/monitors/new');
    assert.match(blank.html, /<input type="checkbox" name="public_badges" value="on"\/?>/, 'unticked on a new monitor');
    const made = await admin.post('/monitors', { ...form, public_badges: 'on' });
    assert.equal(made.status, 303, made.html.slice(0, 300));
    const uuid = /\/monitors\/(mon_[0-9A-Za-z]+)/.exec(made.headers.get('location') ?? '')![1]!;
    assert.equal((await (await p.api(`/v1/monitors/${uuid}`)).json()).public_badges, true);
    assert.match((await admin.get(`/monitors/${uuid}/edit`)).html, /name="public_badges" value="on" checked/);
    assert.equal((await badge(`${uuid}/status.svg`)).status, 200);
    const saved = await admin.post(`/monitors/${uuid}`, form);
    assert.equal(saved.status, 303, saved.html.slice(0, 300));
    assert.equal((await (await p.api(`/v1/monitors/${uuid}`)).json()).public_badges, false, 'unticked: opted out');
    assert.equal((await badge(`${uuid}/status.svg`)).status, 404);
  });

  test('pending before the first check, paused while paused', async () => {
    const res = await p.api('/v1/monitors', { method: 'POST', json: { name: 'Fresh', url: `${target.url}fresh`, check_frequency: 60, paused: true, public_badges: true } });
    const fresh = await res.json();
    assert.equal(await badgeText(await badge(`${fresh.uuid}/status.svg`)), 'status: paused');
    assert.equal(await badgeText(await badge(`${fresh.uuid}/uptime.svg`)), 'uptime 30d: pending');
    assert.equal(await badgeText(await badge(`${fresh.uuid}/response-time.svg`)), 'response 24h: no data');
    await p.api(`/v1/monitors/${fresh.uuid}`, { method: 'PUT', json: { paused: false } });
    await p.advance(2 * MIN);
    assert.equal(await badgeText(await badge(`${fresh.uuid}/status.svg`)), 'status: up');
  });
});
