import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { httpTarget, type HttpTarget } from '../support/targets.ts';
import { setupAdmin, signIn, type ConsoleClient } from '../support/console.ts';

// Issue 33 point 4: one monitor with a known outage history shows the same uptime for the same window on
// the console overview, the monitor page, the public status page and the reports API; "pending" before
// its first check. A real Pharos on a manual clock checks a real loopback target.
const MIN = 60_000;
const H = 60 * MIN;
let p: TestPharos;
let admin: ConsoleClient;
let target: HttpTarget;
let uuid: string;
before(async () => {
  p = await startTestPharos();
  target = await httpTarget(200);
  admin = await setupAdmin(p);
});
after(async () => {
  await target.stop();
  await p.cleanup();
});

const iso = (t: number) => new Date(t).toISOString();
/** The text of the element carrying `data-uptime="<w>"` (first after `from` in the HTML). */
const figure = (html: string, w: string) => {
  const m = new RegExp(`data-uptime="${w}"[^>]*>([^<]+)<`).exec(html);
  assert.ok(m, `no data-uptime="${w}" figure`);
  return m[1]!.trim();
};
const rowOf = (html: string) => new RegExp(`id="row-${uuid}"[^]*?</tr>`).exec(html)![0];

test('a monitor not checked yet is "pending" (status and figures), not "up"', async () => {
  const res = await p.api('/v1/monitors', { method: 'POST', json: { name: 'Shop', url: `${target.url}/shop`, check_frequency: 300 } });
  assert.equal(res.status, 201);
  uuid = (await res.json()).uuid;
  const row = rowOf((await admin.get('/')).html);
  assert.match(row, /data-status="pending">(?:<td class="pick">.*?<\/td>)?<td><span class="status" data-status="pending">pending</);
  assert.equal(figure(row, '24h'), 'pending');
  assert.equal(figure(row, '30d'), 'pending');
  const page = (await admin.get(`/monitors/${uuid}`)).html;
  assert.match(page, /id="monitor-status">pending</);
  assert.equal(figure(page, '24h'), 'pending');
});

test('the same figure for the same window on the overview, the monitor page, the public page and the report', async () => {
  const sp = await p.api('/v2/statuspages', { method: 'POST', json: { name: 'Shop status', subdomain: 'shop', sections: [{ name: 'All', services: [{ monitor_uuid: uuid }] }] } });
  assert.equal(sp.status, 201, await sp.clone().text());
  const createdAt = p.store.monitors.get(uuid)!.createdAt;
  // An outage of ~40 min 5 h after creation (outside the last 24 h at the end), then one of ~20 min near the end.
  await p.advance(5 * H);
  target.respond(500);
  await p.advance(40 * MIN);
  target.respond(200);
  await p.advance(24 * H);
  target.respond(500);
  await p.advance(20 * MIN);
  target.respond(200);
  await p.advance(H);
  await p.core.checks.flush();
  const now = p.clock.now();
  const outages = (await (await p.api('/v2/outages?status=resolved')).json()).outages as Array<{ startDate: string; endDate: string }>;
  assert.equal(outages.length, 2, 'two outages');
  // The definition, by hand: downtime inside the window / the window, rounded down to 2 decimals.
  const expected = (from: number) => {
    const down = outages.reduce((sum, o) => sum + Math.max(0, Math.min(Date.parse(o.endDate), now) - Math.max(Date.parse(o.startDate), from)), 0);
    return Math.floor(((now - from - down) * 10_000) / (now - from)) / 100;
  };
  const day = expected(now - 24 * H);
  const life = expected(createdAt); // the monitor is younger than 30 and 90 days: those windows are its life
  assert.ok(day < 100 && life < day, `the figures fall: 24 h ${day}, life ${life}`);
  const pct = (v: number) => `${v.toFixed(2)} %`;
  admin = await signIn(p, 'admin@example.com', 'correct horse battery'); // the first session expired over the 30 h

  const row = rowOf((await admin.get('/')).html);
  assert.equal(figure(row, '24h'), pct(day), 'overview, 24 h');
  assert.equal(figure(row, '30d'), pct(life), 'overview, 30 d');
  const day24 = (await admin.get(`/monitors/${uuid}?range=24h`)).html;
  assert.match(day24, /id="monitor-status">up</);
  assert.equal(figure(day24, '24h'), pct(day), 'monitor page, Uptime 24 h');
  assert.match(day24, new RegExp(`Uptime 24 h \\(SLA\\) <b data-sla="" data-uptime="24h">${pct(day).replace('.', '\\.')}<`), 'monitor page, the period figure');
  assert.equal(figure((await admin.get(`/monitors/${uuid}?range=30d`)).html.split('id="period"')[1]!, '30d'), pct(life), 'monitor page, 30 d period');
  const publicHtml = await (await fetch(`${p.url}/status/shop`)).text();
  assert.equal(figure(publicHtml, '90d'), `${life.toFixed(2)} % uptime (90 days)`, 'public page, 90 d');
  const report = async (from: number) => (await (await p.api(`/v2/reporting/monitor-reports/${uuid}?from=${iso(from)}&to=${iso(now)}`)).json()).sla;
  assert.equal(await report(now - 24 * H), day, 'report, the last 24 h');
  assert.equal(await report(createdAt), life, 'report, since creation');
});
