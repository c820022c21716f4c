import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { httpReceiver } from '../support/receivers.ts';

// The provider channels end to end: a real server with a manual clock and one real HTTP receiver
// on 127.0.0.1 standing in for every provider (each channel's API base points at its own prefix).
const MIN = 60_000;
const SID = `AC${'ab'.repeat(16)}`;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** The eleven provider channels, each at `<receiver>/<name>/…`. */
function providers(base: string) {
  return [
    { name: 'discord', type: 'discord', url: `${base}/discord/api/webhooks/1/tok` },
    { name: 'telegram', type: 'telegram', bot_token: '1:AAA', chat_id: '42', api_url: `${base}/telegram` },
    { name: 'ntfy', type: 'ntfy', server: `${base}/ntfy`, topic: 'alerts' },
    { name: 'gotify', type: 'gotify', server: `${base}/gotify`, token: 'gt' },
    { name: 'pushover', type: 'pushover', user_key: 'u', app_token: 'a', api_url: `${base}/pushover` },
    { name: 'matrix', type: 'matrix', homeserver: `${base}/matrix`, room_id: '!r:example.org', access_token: 'mt' },
    { name: 'mattermost', type: 'mattermost', url: `${base}/mattermost/hooks/k` },
    { name: 'googlechat', type: 'googlechat', url: `${base}/googlechat/v1/spaces/S/messages?key=k&token=t` },
    { name: 'pagerduty', type: 'pagerduty', routing_key: 'rk', api_url: `${base}/pagerduty` },
    { name: 'opsgenie', type: 'opsgenie', api_key: 'gk', api_url: `${base}/opsgenie` },
    { name: 'twilio', type: 'twilio', account_sid: SID, auth_token: 'tt', from: '+15550001111', to: ['+15552223333'], api_url: `${base}/twilio` },
  ];
}
const NAMES = providers('').map((c) => c.name);
const prefix = (path: string) => path.split('/')[1]!;

async function setup(extra: Record<string, unknown> = {}) {
  const rx = await httpReceiver();
  cleanups.push(rx.close);
  const p = await startTestPharos({
    public_url: 'https://pharos.example.com',
    alerting: { retry_base_seconds: 10 },
    channels: [...providers(rx.url), { name: 'hook', type: 'webhook', url: `${rx.url}/hook` }],
    escalation_policies: [
      { uuid: 'ep_all', name: 'All', steps: [{ after_minutes: 0, channels: NAMES }] },
      { uuid: 'ep_pager', name: 'Pager', steps: [{ after_minutes: 0, channels: ['pagerduty', 'opsgenie', 'hook'] }] },
      { uuid: 'ep_hook', name: 'Hook', steps: [{ after_minutes: 0, channels: ['hook'] }, { after_minutes: 10, channels: ['hook'] }], repeat_every_minutes: 5 },
    ],
    ...extra,
  });
  cleanups.push(() => p.cleanup());
  return { p, rx };
}

async function manualOutage(p: TestPharos, policy: string) {
  const res = await p.api('/v2/outages', { method: 'POST', json: { description: 'Checkout broken', severity: 'critical', escalationPolicyUuid: policy } });
  assert.equal(res.status, 200);
  await p.advance(0);
  return (await res.json()).outage as { uuid: string };
}
const act = (p: TestPharos, uuid: string, action: string) => p.api(`/v2/outages/${uuid}/${action}`, { method: 'POST' });

describe('provider channels through the outbox', () => {
  test('a 5xx is retried by the outbox with the same idempotency id; every row has its own id', async () => {
    const { p, rx } = await setup();
    const seen = new Set<string>();
    rx.state.answer = (path) => {
      const first = !seen.has(prefix(path));
      seen.add(prefix(path));
      return first ? 503 : 202;
    };
    await manualOutage(p, 'ep_all');
    assert.deepEqual(rx.received.map((r) => prefix(r.path)).sort(), [...NAMES].sort(), 'one attempt per channel');
    const rows = p.store.alerts.all();
    assert.ok(rows.every((r) => r.attempts === 1 && r.deliveredAt === null && r.failedAt === null && r.lastError?.endsWith('HTTP 503')), JSON.stringify(rows));
    await p.advance(10_000);
    for (const name of NAMES) {
      const got = rx.received.filter((r) => prefix(r.path) === name);
      assert.deepEqual(got.map((r) => r.status), [503, 202], name);
      assert.equal(got[0]!.headers['idempotency-key'], got[1]!.headers['idempotency-key'], `${name}: same id on the retry`);
      assert.equal(got[0]!.path, got[1]!.path, `${name}: same request path`);
    }
    assert.ok(p.store.alerts.all().every((r) => r.deliveredAt !== null && r.attempts === 2));
    const ids = rows.map((r) => r.deliveryId);
    assert.equal(new Set(ids).size, ids.length);
    assert.ok(ids.every((id) => /^dlv_[0-9A-Za-z]{22}$/.test(id)));
    const matrix = rx.received.find((r) => prefix(r.path) === 'matrix')!;
    assert.ok(matrix.path.endsWith(`/send/m.room.message/${matrix.headers['idempotency-key']}`), 'Matrix txn id = delivery id');
  });

  test('a 4xx is final: marked failed after one attempt, never retried', async () => {
    const { p, rx } = await setup();
    rx.state.answer = () => 400;
    await manualOutage(p, 'ep_all');
    await p.advance(60 * MIN);
    assert.equal(rx.received.length, NAMES.length);
    const rows = p.store.alerts.all();
    // Rows name integrations by uuid (issue 32); errors name the channel.
    const nameOf = (channel: string) => p.store.integrations.get(channel)!.name;
    assert.ok(rows.every((r) => r.attempts === 1 && r.failedAt !== null && r.lastError === `${nameOf(r.channel)} ${nameOf(r.channel)}: HTTP 400`), JSON.stringify(rows.map((r) => r.lastError)));
  });
});

describe('lifecycle channels', () => {
  test('PagerDuty, Opsgenie and the webhook: trigger/create, acknowledge, resolve/close with one key; chat channels get no acknowledgement', async () => {
    const { p, rx } = await setup();
    rx.state.answer = () => 202;
    const o = await manualOutage(p, 'ep_pager');
    const pd = () => rx.received.filter((r) => prefix(r.path) === 'pagerduty').map((r) => JSON.parse(r.body));
    const og = () => rx.received.filter((r) => prefix(r.path) === 'opsgenie');
    assert.equal(pd()[0].event_action, 'trigger');
    assert.equal(pd()[0].dedup_key, o.uuid);
    assert.equal(pd()[0].payload.severity, 'critical');
    assert.equal(og()[0]!.path, '/opsgenie/v2/alerts');
    assert.equal(JSON.parse(og()[0]!.body).alias, o.uuid);
    assert.equal(og()[0]!.headers.authorization, 'GenieKey gk');

    assert.equal((await act(p, o.uuid, 'acknowledge')).status, 200);
    await p.advance(0);
    assert.deepEqual(pd()[1], { routing_key: 'rk', event_action: 'acknowledge', dedup_key: o.uuid });
    assert.equal(og()[1]!.path, `/opsgenie/v2/alerts/${o.uuid}/acknowledge?identifierType=alias`);
    assert.deepEqual(rx.delivered('/hook').map((b) => b.event), ['outage.alert', 'outage.acknowledged'], 'the webhook follows the lifecycle too (issue 32)');

    assert.equal((await act(p, o.uuid, 'resolve')).status, 200);
    await p.advance(0);
    assert.deepEqual(pd()[2], { routing_key: 'rk', event_action: 'resolve', dedup_key: o.uuid });
    assert.equal(og()[2]!.path, `/opsgenie/v2/alerts/${o.uuid}/close?identifierType=alias`);
    assert.equal(rx.delivered('/hook').at(-1).event, 'outage.recovery');
    const kinds = p.store.alerts.forOutage(o.uuid).map((r) => `${p.store.integrations.get(r.channel)!.name}:${r.kind}`);
    assert.deepEqual([...kinds].sort(), ['hook:acknowledge', 'hook:alert', 'hook:recovery', 'opsgenie:acknowledge', 'opsgenie:alert', 'opsgenie:recovery', 'pagerduty:acknowledge', 'pagerduty:alert', 'pagerduty:recovery']);
  });
});

describe('alert content', () => {
  test('escalation repeats report the repeat count, never a step beyond the last', async () => {
    const { p, rx } = await setup();
    await manualOutage(p, 'ep_hook');
    await p.advance(10 * MIN);
    await p.advance(5 * MIN);
    await p.advance(5 * MIN);
    const sent = rx.delivered('/hook').map((b) => b.escalation);
    assert.deepEqual(sent.map((e) => [e.step, e.totalSteps, e.repeat]), [[1, 2, 0], [2, 2, 0], [2, 2, 1], [2, 2, 2]]);
    const last = rx.delivered('/hook').at(-1);
    assert.match(last.text, /Escalation Hook, step 2 of 2, repeat 2\./);
    assert.doesNotMatch(JSON.stringify(rx.delivered('/hook')), /step 3 of 2|step 4 of 2/);
  });

  test('a healthcheck alert names it and links the console, never the secret ping URL or token', async () => {
    const { p, rx } = await setup();
    const res = await p.api('/v1/healthchecks', { method: 'POST', json: { name: 'nightly-backup', period_value: 1, period_type: 'hours', grace_period_value: 5, grace_period_type: 'minutes', escalation_policy: 'ep_hook' } });
    assert.equal(res.status, 201);
    const hc = (await res.json()).healthcheck as { uuid: string; publicUuid: string; pingUrl: string };
    await p.advance(66 * MIN);
    const [alert] = rx.delivered('/hook');
    assert.ok(alert, 'the late healthcheck alerted');
    const raw = rx.received.find((r) => r.path === '/hook')!.body;
    assert.ok(!raw.includes(hc.uuid), 'no ping token anywhere in the payload');
    assert.ok(!raw.includes('/ping/'), 'no ping URL');
    assert.equal(alert.title, 'DOWN: nightly-backup (healthcheck)');
    assert.deepEqual(alert.outage.monitor, { uuid: hc.publicUuid, name: 'nightly-backup', url: `https://pharos.example.com/healthchecks/${hc.publicUuid}`, protocol: 'healthcheck' });
    assert.match(alert.link, /^https:\/\/pharos\.example\.com\/outages\/outage_/);
  });
});
