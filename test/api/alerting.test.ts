import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { httpReceiver, smtpReceiver } from '../support/receivers.ts';
import { httpTarget } from '../support/targets.ts';

// Escalation and delivery end to end: a real server with a manual clock, real receivers on
// 127.0.0.1 (an HTTP server for webhook/Slack/Teams, smtp-server for email).
const MIN = 60_000;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function setup() {
  const hooks = await httpReceiver();
  const smtp = await smtpReceiver();
  cleanups.push(hooks.close, smtp.close);
  const p = await startTestPharos({
    public_url: 'https://pharos.example.com',
    alerting: { retry_base_seconds: 10 },
    channels: [
      { name: 'hook-a', type: 'webhook', url: `${hooks.url}/a`, secret: 's3cret' },
      { name: 'hook-b', type: 'webhook', url: `${hooks.url}/b` },
      { name: 'slack', type: 'slack', url: `${hooks.url}/slack` },
      { name: 'teams', type: 'teams', url: `${hooks.url}/teams` },
      { name: 'flaky', type: 'webhook', url: `${hooks.url}/flaky` },
      { name: 'mail', type: 'email', from: 'pharos@example.com', to: ['oncall@example.com', 'lead@example.com'], smtp: { host: '127.0.0.1', port: smtp.port } },
    ],
    escalation_policies: [
      {
        uuid: 'ep_team',
        name: 'Team',
        steps: [
          { after_minutes: 0, channels: ['hook-a', 'slack'] },
          { after_minutes: 10, channels: ['hook-b', 'teams'] },
          { after_minutes: 30, channels: ['mail'] },
        ],
      },
      { uuid: 'ep_mail', name: 'Mail', steps: [{ after_minutes: 0, channels: ['mail'] }] },
      { uuid: 'ep_flaky', name: 'Flaky', steps: [{ after_minutes: 0, channels: ['flaky'] }] },
    ],
  });
  cleanups.push(() => p.cleanup());
  return { p, hooks, smtp };
}

async function manualOutage(p: TestPharos, policy: string) {
  const res = await p.api('/v2/outages', { method: 'POST', json: { description: 'Checkout broken', severity: 'major', escalationPolicyUuid: policy } });
  assert.equal(res.status, 200);
  await p.advance(0);
  return (await res.json()).outage as { uuid: string; incidentNumber: number };
}
const act = (p: TestPharos, uuid: string, action: string) => p.api(`/v2/outages/${uuid}/${action}`, { method: 'POST' });

describe('alerting', () => {
  test('escalation timeline: steps on their delays, acknowledge stops, unacknowledge resumes, resolve sends recovery to everyone alerted', async () => {
    const { p, hooks, smtp } = await setup();
    const t0 = p.clock.now();
    const o = await manualOutage(p, 'ep_team');
    assert.equal(hooks.delivered('/a').length, 1, 'step 1 goes out at once');
    assert.equal(hooks.delivered('/slack').length, 1);
    const [alert] = hooks.delivered('/a');
    assert.equal(alert.event, 'outage.alert');
    assert.equal(alert.outage.uuid, o.uuid);
    assert.equal(alert.outage.description, 'Checkout broken');
    assert.deepEqual(alert.escalation, { policyUuid: 'ep_team', policyName: 'Team', step: 1, totalSteps: 3, repeat: 0 });
    assert.equal(alert.link, `https://pharos.example.com/outages/${o.uuid}`);
    const signed = hooks.received.find((r) => r.path === '/a')!;
    const ts = signed.headers['x-pharos-timestamp'] as string;
    assert.equal(signed.headers['x-pharos-signature'], `sha256=${createHmac('sha256', 's3cret').update(`${ts}.${signed.body}`).digest('hex')}`);
    assert.ok(Array.isArray(hooks.delivered('/slack')[0].blocks), 'Slack gets blocks');

    await p.advance(10 * MIN - 1);
    assert.equal(hooks.delivered('/b').length, 0, 'step 2 not before its 10 minutes');
    await p.advance(1);
    assert.equal(hooks.delivered('/b').length, 1);
    assert.equal(hooks.delivered('/teams')[0].attachments[0].contentType, 'application/vnd.microsoft.card.adaptive');

    assert.equal((await act(p, o.uuid, 'acknowledge')).status, 200);
    await p.advance(40 * MIN);
    assert.equal(smtp.mails.length, 0, 'acknowledged: step 3 is held');
    assert.equal((await act(p, o.uuid, 'unacknowledge')).status, 200);
    await p.advance(0);
    assert.equal(smtp.mails.length, 1, 'unacknowledged: the overdue step 3 goes out at once');
    assert.deepEqual(smtp.mails[0]!.to, ['oncall@example.com', 'lead@example.com']);

    assert.equal((await act(p, o.uuid, 'resolve')).status, 200);
    await p.advance(0);
    for (const path of ['/a', '/b']) assert.equal(hooks.delivered(path).at(-1).event, 'outage.recovery', path);
    assert.equal(smtp.mails.length, 2);
    assert.match(smtp.mails[1]!.raw, /RECOVERED/);
    const got = (await (await p.api(`/v2/outages/${o.uuid}`)).json()).escalationPolicy;
    assert.deepEqual(got, { uuid: 'ep_team', name: 'Team', alertedSteps: 3, totalSteps: 3 });
    assert.equal(p.clock.now() - t0, 50 * MIN);
  });

  test('escalate skips ahead to the next step now; later steps keep their own times', async () => {
    const { p, hooks, smtp } = await setup();
    const o = await manualOutage(p, 'ep_team');
    const res = await act(p, o.uuid, 'escalate');
    assert.equal(res.status, 200);
    await p.advance(0);
    assert.equal(hooks.delivered('/b').length, 1, 'step 2 now');
    assert.equal((await res.json()).outage.escalationPolicy.alertedSteps, 2);
    await p.advance(30 * MIN - 1);
    assert.equal(smtp.mails.length, 0);
    assert.equal(hooks.delivered('/b').length, 1, 'step 2 is not sent twice');
    await p.advance(1);
    assert.equal(smtp.mails.length, 1, 'step 3 at its own time');
  });

  test('a monitor outage waits alerts_wait, then mails with monitor, cause, start time and link; recovery follows', async () => {
    const { p, smtp } = await setup();
    const target = await httpTarget(503);
    cleanups.push(target.stop);
    const res = await p.api('/v1/monitors', { method: 'POST', json: { name: 'Shop', url: target.url, check_frequency: 10, alerts_wait: 5, escalation_policy: 'ep_mail' } });
    const monitor = await res.json();
    const id = p.store.monitors.get(monitor.uuid)!.id;
    await p.advance(p.scheduler.nextDueAt(id)! - p.clock.now());
    await p.advance(3_000);
    await p.advance(3_000);
    const [outage] = (await (await p.api('/v2/outages')).json()).outages;
    assert.ok(outage, 'the monitor is down with an outage');
    await p.advance(5 * MIN - 1);
    assert.equal(smtp.mails.length, 0, 'nothing before alerts_wait');
    await p.advance(1);
    assert.equal(smtp.mails.length, 1);
    const mail = smtp.mails[0]!.raw.replace(/=\r?\n/g, '');
    assert.match(mail, /Subject: \[Pharos\] DOWN: Shop/);
    for (const part of ['Shop', target.url, 'Expected 2xx, got 503', outage.startDate, `https://pharos.example.com/outages/${outage.uuid}`]) {
      assert.ok(mail.includes(part), `the mail mentions ${part}`);
    }
    target.respond(200);
    await p.advance(p.scheduler.nextDueAt(id)! - p.clock.now());
    assert.equal(smtp.mails.length, 2);
    assert.match(smtp.mails[1]!.raw, /RECOVERED: Shop/);
  });

  test('alerts_wait -1 never alerts', async () => {
    const { p, hooks } = await setup();
    const target = await httpTarget(500);
    cleanups.push(target.stop);
    const monitor = await (await p.api('/v1/monitors', { method: 'POST', json: { name: 'Quiet', url: target.url, check_frequency: 10, alerts_wait: -1, escalation_policy: 'ep_team' } })).json();
    await p.advance(2 * 3_600_000);
    assert.equal((await (await p.api(`/v1/monitors/${monitor.uuid}`)).json()).status, 'down');
    assert.equal(hooks.received.length, 0);
    assert.deepEqual(p.store.alerts.all(), []);
  });

  test('a receiver that fails 3 times then succeeds gets exactly one successful delivery', async () => {
    const { p, hooks } = await setup();
    let calls = 0;
    hooks.state.answer = (path) => (path === '/flaky' && ++calls <= 3 ? 500 : 200);
    const o = await manualOutage(p, 'ep_flaky');
    assert.equal(hooks.received.length, 1);
    await p.advance(10_000 - 1);
    assert.equal(hooks.received.length, 1, 'first retry after 10 s');
    await p.advance(1);
    await p.advance(20_000);
    await p.advance(40_000);
    assert.deepEqual(hooks.received.map((r) => r.status), [500, 500, 500, 200]);
    assert.equal(hooks.delivered('/flaky').length, 1);
    await p.advance(3_600_000);
    assert.equal(hooks.received.length, 4, 'nothing more once delivered');
    const [row] = p.store.alerts.forOutage(o.uuid);
    assert.equal(row!.attempts, 4);
    assert.ok(row!.deliveredAt !== null);
    const metrics = await (await p.api('/metrics')).text();
    assert.match(metrics, /pharos_alerts_total\{channel="flaky",result="retry"\} 3/);
    assert.match(metrics, /pharos_alerts_total\{channel="flaky",result="delivered"\} 1/);
  });

  test('a permanent error (HTTP 400) is not retried; the alert is marked failed', async () => {
    const { p, hooks } = await setup();
    hooks.state.answer = () => 400;
    const o = await manualOutage(p, 'ep_flaky');
    await p.advance(3_600_000);
    assert.equal(hooks.received.length, 1);
    const [row] = p.store.alerts.forOutage(o.uuid);
    assert.ok(row!.failedAt !== null);
    assert.match(row!.lastError!, /HTTP 400/);
  });
});
