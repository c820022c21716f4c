import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { setupAdmin, type ConsoleClient } from '../support/console.ts';

// Issue 33 point 11: counts of one read as one ("1 minute", "1 outage", "1 monitor", "1 service"),
// on console pages and the public page; no "1 <plural>" left on the pages a person meets.
const MIN = 60_000;
let p: TestPharos;
let admin: ConsoleClient;
before(async () => {
  p = await startTestPharos();
  admin = await setupAdmin(p);
});
after(async () => {
  await p.cleanup();
});

const post = async (path: string, json: unknown) => {
  const res = await p.api(path, { method: 'POST', json });
  assert.ok(res.status === 200 || res.status === 201, `${path}: ${res.status}`);
  return res.json();
};
const text = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
const ONE_PLURAL = /\b1 (monitors|healthchecks|steps|minutes|hours|days|seconds|outages|services|checks|updates|sections|status pages)\b/;

test('a healthcheck of 1 minute + 1 minute grace, its late outage, a monitor with one outage, a policy attached to one monitor, a group of one service', async () => {
  const hc = (await post('/v1/healthchecks', { name: 'Cron', period_value: 1, period_type: 'minutes', grace_period_value: 1, grace_period_type: 'minutes' })).healthcheck;
  const mon = (await post('/v1/monitors', { name: 'Down', url: 'http://127.0.0.1:9/', check_frequency: 60 })).uuid as string;
  const hook = await post('/v1/integrations', { name: 'hook', type: 'webhook', settings: { url: 'http://127.0.0.1:9/hook' } });
  const policy = await post('/v1/escalation-policies', { name: 'Night', steps: [{ delay_minutes: 0, targets: [{ type: 'integration', uuid: hook.uuid }] }] });
  await post('/v2/statuspages', { name: 'Acme', subdomain: 'acme', sections: [{ name: 'All', services: [{ monitor_uuid: mon, name_shown: 'Backend', is_group: true, services: [{ monitor_uuid: mon }] }] }] });
  await p.advance(3 * MIN);

  const hcPage = text((await admin.get(`/healthchecks/${hc.uuid}`)).html);
  assert.match(hcPage, /every 1 minute, grace 1 minute\b/);
  assert.match(hcPage, /No ping within 1 minute \+ 1 minute grace/);
  const monPage = text((await admin.get(`/monitors/${mon}`)).html);
  assert.match(monPage, /· 1 outage ·/);
  const attached = await admin.post(`/escalation-policies/${policy.uuid}/attach`, { monitors: mon });
  const notice = text((await admin.get(attached.headers.get('location')!)).html);
  assert.match(notice, /Attached to 1 monitor and 0 healthchecks\./);
  const publicPage = text(await (await fetch(`${p.url}/status/acme`)).text());
  assert.match(publicPage, /\b1 service\b/);
  for (const [name, page] of [['healthcheck', hcPage], ['monitor', monPage], ['policy', notice], ['public', publicPage]] as const) assert.doesNotMatch(page, ONE_PLURAL, `${name} page`);
});
