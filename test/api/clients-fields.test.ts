import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { assertDecodes, arr, bool, int, nullable, obj, str, any } from './clients/shapes.ts';
import { go, py } from './clients/types.ts';

// Issue 35 point 6: fields the hosted service answers (hyperping-go's recorded answers,
// testdata/cassettes/*.yaml) and its clients model, which Pharos did not send. Each is checked with
// the type the recording shows; what Pharos cannot mean is documented in docs/api.md "Clients".
let p: TestPharos;
before(async () => {
  p = await startTestPharos({
    channels: [{ name: 'ops-hook', type: 'webhook', url: 'http://127.0.0.1:9/hook' }],
    escalation_policies: [{ uuid: 'ep_ops', name: 'Ops', steps: [{ after_minutes: 0, channels: ['ops-hook'] }] }],
  });
});
after(() => p.cleanup());
const json = async (path: string, method = 'GET', body?: unknown) => {
  const res = await p.api(path, { method, ...(body === undefined ? {} : { json: body }) });
  return { status: res.status, body: await res.json() };
};

test('monitors: group_id (the group, as named) and show_url (false: pages never show URLs), as monitor_crud.yaml has them', async () => {
  const m = await json('/v1/monitors', 'POST', { name: 'API', url: 'http://127.0.0.1:9/', paused: true, group: 'Backend' });
  assert.equal(m.status, 201, JSON.stringify(m.body));
  assertDecodes(m.body, obj({ group_id: nullable(str), show_url: bool, sort_order: int }), 'recorded monitor fields');
  assert.deepEqual([m.body.group_id, m.body.show_url], ['Backend', false]);
  const bare = await json('/v1/monitors', 'POST', { name: 'Bare', url: 'http://127.0.0.1:9/', paused: true });
  assert.deepEqual([bare.body.group_id, bare.body.show_url], [null, false], 'no group: null, as recorded');
  assertDecodes(bare.body, go.Monitor, 'Go Monitor');
  assertDecodes(bare.body, py.Monitor, 'Python Monitor');
});

test('healthchecks: slug (null), lastLogStartDate / lastLogEndDate from start and end pings, lastDowntime from its outages', async () => {
  const created = await json('/v2/healthchecks', 'POST', { name: 'job', period_value: 1, period_type: 'hours', grace_period_value: 5, grace_period_type: 'minutes' });
  const uuid = created.body.healthcheck.uuid as string;
  const shape = obj({ slug: nullable(str), lastLogStartDate: nullable(str), lastLogEndDate: nullable(str), lastDowntime: nullable(str) });
  assertDecodes(created.body, shape, 'recorded healthcheck fields');
  assert.deepEqual([created.body.slug, created.body.lastLogStartDate, created.body.lastLogEndDate, created.body.lastDowntime], [null, null, null, null], 'never pinged, never down: null, as recorded');
  assert.equal((await fetch(`${p.url}/ping/${uuid}/start`, { method: 'POST' })).status, 200);
  const running = (await json(`/v2/healthchecks/${uuid}`)).body;
  assertDecodes(running, go.Healthcheck, 'Go Healthcheck');
  assert.equal(running.lastLogStartDate, new Date(p.clock.now()).toISOString(), 'a run going: when it started');
  assert.equal(running.lastLogEndDate, null);
  await p.advance(90_000);
  assert.equal((await fetch(`${p.url}/ping/${uuid}`, { method: 'POST' })).status, 200);
  const done = (await json(`/v2/healthchecks/${uuid}`)).body;
  assert.deepEqual([done.lastLogStartDate, done.lastLogEndDate], [null, new Date(p.clock.now()).toISOString()], 'the run ended: when');
  // A fail ping opens an outage: lastDowntime is when it started, in the list too.
  assert.equal((await fetch(`${p.url}/ping/${uuid}/fail`, { method: 'POST' })).status, 200);
  const failedAt = new Date(p.clock.now()).toISOString();
  await p.advance(60_000);
  assert.equal((await fetch(`${p.url}/ping/${uuid}`, { method: 'POST' })).status, 200);
  assert.equal((await json(`/v2/healthchecks/${uuid}`)).body.lastDowntime, failedAt);
  const listed = (await json('/v2/healthchecks')).body.healthchecks.find((h: { uuid: string }) => h.uuid === uuid);
  assert.equal(listed.lastDowntime, failedAt);
});

test('outages: numeric id (the incident number), errorHeader (null), alertedChannels (who was alerted), as outage_crud.yaml has them', async () => {
  const created = await json('/v2/outages', 'POST', { description: 'Payments failing', escalationPolicyUuid: 'ep_ops' });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const shape = obj({ id: int, errorHeader: nullable(any), alertedChannels: arr(str) });
  assertDecodes(created.body.outage, shape, 'recorded outage fields');
  assertDecodes(created.body.outage, go.Outage, 'Go Outage');
  assert.equal(created.body.outage.id, created.body.outage.incidentNumber);
  assert.deepEqual([created.body.outage.errorHeader, created.body.outage.alertedChannels], [null, ['ops-hook']]);
  const quiet = await json('/v2/outages', 'POST', { description: 'No policy' });
  const mine = new Set([created.body.outage.uuid, quiet.body.outage.uuid]);
  const list = ((await json('/v2/outages')).body.outages as Array<{ uuid: string; alertedChannels: string[]; id: number }>).filter((o) => mine.has(o.uuid));
  assert.deepEqual(list.map((o) => [o.uuid, o.alertedChannels]), [[quiet.body.outage.uuid, []], [created.body.outage.uuid, ['ops-hook']]]);
  assert.ok(list[0]!.id > list[1]!.id);
  const one = (await json(`/v2/outages/${created.body.outage.uuid}`)).body;
  assert.deepEqual([one.outage.alertedChannels, one.alertedChannels], [['ops-hook'], ['ops-hook']]);
});

test('subscribers: teams_webhook_url (a Teams subscriber\'s, as its origin only; null otherwise), as statuspage_subscribers.yaml has it', async () => {
  const sp = (await json('/v2/statuspages', 'POST', { name: 'Fields' })).body.statuspage.uuid as string;
  const mail = await json(`/v2/statuspages/${sp}/subscribers`, 'POST', { type: 'email', email: 'ops@example.com' });
  assertDecodes(mail.body.subscriber, obj({ id: int, type: str, email: nullable(str), phone: nullable(str), teams_webhook_url: nullable(str) }), 'recorded subscriber fields');
  assert.equal(mail.body.subscriber.teams_webhook_url, null);
  const teams = await json(`/v2/statuspages/${sp}/subscribers`, 'POST', { type: 'teams', teams_webhook_url: 'https://acme.webhook.office.com/webhookb2/secret-part' });
  assert.equal(teams.body.subscriber.teams_webhook_url, 'https://acme.webhook.office.com/…', 'a credential: its origin only');
});

test('maintenance windows: createdBy (who created it, from the audit log), as maintenance_crud.yaml has it; bulkUuid is not sent', async () => {
  const created = await json('/v1/maintenance-windows', 'POST', { name: 'w', start_date: '2030-01-01T00:00:00Z', end_date: '2030-01-01T01:00:00Z', monitors: [] });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assertDecodes(created.body, obj({ createdBy: str }), 'recorded maintenance field');
  assert.match(created.body.createdBy, /admin@localhost/, 'the API token, named with its owner');
  assertDecodes(created.body, go.Maintenance, 'Go Maintenance');
  assert.equal(created.body.bulkUuid, undefined);
  const renamed = await json(`/v1/maintenance-windows/${created.body.uuid}`, 'PUT', { name: 'w2' });
  assert.equal(renamed.body.createdBy, created.body.createdBy, 'an update does not change who created it');
  const listed = ((await json('/v1/maintenance-windows')).body as Array<{ uuid: string; createdBy: string }>).find((w) => w.uuid === created.body.uuid);
  assert.equal(listed?.createdBy, created.body.createdBy);
});
