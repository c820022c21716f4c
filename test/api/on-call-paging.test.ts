import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { httpReceiver } from '../support/receivers.ts';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { twilioSignature } from '../../src/http/page-links.ts';
import { setupAdmin, type ConsoleClient } from '../support/console.ts';

// Escalation steps that page people (issue 34 points 3–5) over HTTP, on the store under test: one
// local HTTP receiver stands in for Twilio (Messages), ntfy (`/ntfy`) and a webhook integration
// (`/hook`); time is the manual clock. The person is the installation token's user, on call for a
// weekly schedule; their rules: ntfy at once, SMS after 5 minutes.
const SID = `AC${'cd'.repeat(16)}`;
const AUTH = 'tw-paging-token';
const MESSAGES = `/2010-04-01/Accounts/${SID}/Messages.json`;
const PHONE = '+15553334444';

let p: TestPharos;
let rx: Awaited<ReturnType<typeof httpReceiver>>;
let me: string;
let hook: string;
let primary: string;
let admin: ConsoleClient;

const texts = () => rx.received.filter((r) => r.path === MESSAGES).map((r) => Object.fromEntries(new URLSearchParams(r.body))).filter((f) => f.To === PHONE);
const pushes = () => rx.received.filter((r) => r.path.startsWith('/ntfy')).map((r) => JSON.parse(r.body) as { topic: string; title: string; message: string });
const hooks = () => rx.received.filter((r) => r.path === '/hook');
const json = async (path: string, method: string, body: unknown, status = method === 'POST' ? 201 : 200) => {
  const res = await p.api(path, { method, json: body });
  assert.equal(res.status, status, await res.clone().text());
  return res.json();
};
const code = (text: string) => { const m = /(\d{6})/.exec(text); assert.ok(m, text); return m[1]!; };

async function verified(kind: string, address: string, sentCode: () => string): Promise<string> {
  const m = await json('/v1/me/contact-methods', 'POST', { kind, address });
  await json(`/v1/me/contact-methods/${m.uuid}/verify`, 'POST', { code: sentCode() }, 200);
  return m.uuid;
}

const policy = (name: string, steps: unknown[]) => json('/v1/escalation-policies', 'POST', { name, steps });
const outage = async (policyUuid: string, description: string) => {
  const { outage: o } = await json('/v2/outages', 'POST', { description, escalationPolicyUuid: policyUuid }, 200);
  await p.advance(0);
  return o as { uuid: string; incidentNumber: number };
};
const signed = (params: Record<string, string>, signature?: string) =>
  fetch(`${p.url}/hooks/twilio/sms`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature ?? twilioSignature(AUTH, `${p.core.config.public_url.replace(/\/+$/, '')}/hooks/twilio/sms`, params) },
    body: new URLSearchParams(params).toString(),
  });

before(async () => {
  rx = await httpReceiver();
  rx.state.answer = () => 201;
  p = await startTestPharos({
    channels: [
      { name: 'twilio-account', type: 'twilio', account_sid: SID, auth_token: AUTH, from: '+15550001111', to: ['+15550009999'], api_url: rx.url },
      { name: 'ntfy', type: 'ntfy', server: `${rx.url}/ntfy`, topic: 'team' },
      { name: 'hook', type: 'webhook', url: `${rx.url}/hook` },
    ],
  });
  me = (await (await p.api('/v1/me')).json()).uuid;
  // The console's first-run setup is open only shortly after start: the admin is made now.
  admin = await setupAdmin(p);
  hook = (await (await p.api('/v1/integrations')).json()).find((i: { name: string }) => i.name === 'hook').uuid;
  const push = await verified('ntfy', 'ada-pager', () => code(pushes().at(-1)!.message));
  const sms = await verified('sms', PHONE, () => code(texts().at(-1)!.Body!));
  await json('/v1/me/notification-rules', 'PUT', { rules: [{ method_uuid: push, delay_minutes: 0 }, { method_uuid: sms, delay_minutes: 5 }] }, 200);
  const rotation = { type: 'weekly', handoff_time: '09:00', start_date: '2025-12-01' };
  primary = (await json('/v1/on-call-schedules', 'POST', { name: 'Primary', time_zone: 'UTC', layers: [{ name: 'L1', users: [me], rotation, restrictions: [] }] })).uuid;
});
after(async () => {
  await p?.cleanup();
  await rx?.close();
});

describe('on-call paging', () => {
  test('user and schedule targets must exist (400 naming the field)', async () => {
    const bad = await p.api('/v1/escalation-policies', { method: 'POST', json: { name: 'bad', steps: [{ delay_minutes: 0, targets: [{ type: 'schedule', uuid: 'sched_missing' }] }] } });
    assert.equal(bad.status, 400);
    assert.match((await bad.json()).message, /^steps\[0\]\.targets\[0\]\.uuid: no on-call schedule/);
    const user = await p.api('/v1/escalation-policies', { method: 'POST', json: { name: 'bad', steps: [{ delay_minutes: 0, targets: [{ type: 'user', uuid: 'user_missing' }] }] } });
    assert.equal(user.status, 400);
    assert.match((await user.json()).message, /^steps\[0\]\.targets\[0\]\.uuid: no team member/);
  });

  test('an outage pages the on-call person by push, then SMS after 5 minutes; "ACK <n>" by SMS acknowledges it and the next step is not sent', async () => {
    const ep = await policy('On call', [
      { delay_minutes: 0, targets: [{ type: 'schedule', uuid: primary }] },
      { delay_minutes: 15, targets: [{ type: 'integration', uuid: hook }] },
    ]);
    const before = { push: pushes().length, sms: texts().length, hook: hooks().length };
    const o = await outage(ep.uuid, 'API is down');
    const push = pushes().at(-1)!;
    assert.equal(pushes().length, before.push + 1, 'pushed at once');
    assert.equal(push.topic, 'ada-pager');
    assert.match(push.title, new RegExp(`Outage #${o.incidentNumber}`));
    assert.match(push.message, /\/ack\/v1:/);
    assert.equal(texts().length, before.sms, 'no SMS yet');

    await p.advance(5 * 60_000);
    await p.core.people.settled();
    assert.equal(texts().length, before.sms + 1, 'the SMS after 5 minutes');
    assert.match(texts().at(-1)!.Body!, new RegExp(`ACK ${o.incidentNumber}`));

    const reply = { From: PHONE, To: '+15550001111', Body: `ACK ${o.incidentNumber}`, MessageSid: 'SM1' };
    assert.equal((await signed(reply, 'bm90LWl0')).status, 403, 'a wrong signature is refused');
    assert.equal((await p.api(`/v2/outages/${o.uuid}`).then((r) => r.json())).acknowledgedAt ?? null, null);
    const ok = await signed(reply);
    assert.equal(ok.status, 200);
    assert.match(ok.headers.get('content-type')!, /xml/);
    assert.match(await ok.text(), new RegExp(`<Response><Message>Outage #${o.incidentNumber} acknowledged\\.</Message></Response>`));
    const stored = await p.core.outages.get(o.uuid);
    assert.equal(stored.acknowledgedBy, me);

    await p.advance(20 * 60_000);
    assert.equal(hooks().length, before.hook, 'the second step is not sent');
    const timeline = (await p.core.outages.timeline(o.uuid)).map((e) => `${e.type} ${e.message ?? ''}`);
    assert.ok(timeline.some((t) => /^alerted step 1: paged .*on call for schedule "Primary": ntfy .* sent; sms after 5 min/.test(t)), timeline.join('\n'));
    assert.ok(timeline.some((t) => /^acknowledged by SMS reply/.test(t)), timeline.join('\n'));
  });

  test('an acknowledge link shows a confirmation on GET, acts once on POST, and is refused when replayed or expired', async () => {
    const ep = await policy('Links', [{ delay_minutes: 0, targets: [{ type: 'user', uuid: me }] }]);
    const o = await outage(ep.uuid, 'Web is down');
    const link = /(\/ack\/\S+)/.exec(pushes().at(-1)!.message)![1]!;
    const page = await fetch(p.url + link);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<form method="post">/);
    assert.equal((await p.core.outages.get(o.uuid)).acknowledgedAt, null, 'GET does not act');
    const done = await fetch(p.url + link, { method: 'POST' });
    assert.equal(done.status, 200);
    assert.notEqual((await p.core.outages.get(o.uuid)).acknowledgedAt, null);
    await p.core.outages.unacknowledge(o.uuid, { user: (await p.store.async.users.findUser(me))!, scope: 'write', tokenId: 't' }, null);
    const again = await fetch(p.url + link, { method: 'POST' });
    assert.equal(again.status, 410);
    assert.match(await again.text(), /already used/);

    const o2 = await outage(ep.uuid, 'Mail is down');
    const link2 = /(\/ack\/\S+)/.exec(pushes().at(-1)!.message)![1]!;
    await p.advance(31 * 60_000);
    const late = await fetch(p.url + link2, { method: 'POST' });
    assert.equal(late.status, 410);
    assert.match(await late.text(), /expired/);
    assert.equal((await p.core.outages.get(o2.uuid)).acknowledgedAt, null);
    assert.equal((await fetch(`${p.url}/ack/v1:forged:x:y:z`, { method: 'POST' })).status, 404);
  });

  test('a schedule with nobody on call: the next step fires at once and the gap is on the timeline', async () => {
    const empty = await json('/v1/on-call-schedules', 'POST', { name: 'Later', time_zone: 'UTC', layers: [{ name: 'L1', users: [me], rotation: { type: 'weekly', handoff_time: '09:00', start_date: '2099-01-01' }, restrictions: [] }] });
    const ep = await policy('Gap', [
      { delay_minutes: 0, targets: [{ type: 'schedule', uuid: empty.uuid }] },
      { delay_minutes: 30, targets: [{ type: 'integration', uuid: hook }] },
    ]);
    // The console admin has an ntfy method: they are told that nobody was reached.
    const adminUuid = (await (await p.api('/v1/team-members')).json()).find((m: { email: string }) => m.email === 'admin@example.com').uuid;
    const cm = await json(`/v1/team-members/${adminUuid}/contact-methods`, 'POST', { kind: 'ntfy', address: 'admin-pager' });
    await json(`/v1/team-members/${adminUuid}/contact-methods/${cm.uuid}/verify`, 'POST', { code: code(pushes().at(-1)!.message) }, 200);
    const before = hooks().length;
    const o = await outage(ep.uuid, 'DNS is down');
    await p.advance(0);
    assert.equal(hooks().length, before + 1, 'step 2 went out without waiting 30 minutes');
    const timeline = (await p.core.outages.timeline(o.uuid)).map((e) => e.message ?? '');
    assert.ok(timeline.some((t) => /schedule "Later" has nobody on call/.test(t)), timeline.join('\n'));
    assert.ok(timeline.some((t) => /reached nobody: the next step is sent at once/.test(t)), timeline.join('\n'));
    const told = pushes().filter((m) => m.topic === 'admin-pager').at(-1);
    assert.equal(told?.title, `Pharos could not page anyone for outage #${o.incidentNumber}`);
    assert.match(told.message, /schedule "Later" has nobody on call/);
  });

  test('policy_repeats runs the whole policy again after its last step, unless acknowledged', async () => {
    const both = await p.api('/v1/escalation-policies', { method: 'POST', json: { name: 'x', steps: [{ delay_minutes: 0, targets: [] }], policy_repeats: 1, repeat_count: 2 } });
    assert.equal(both.status, 400);
    assert.match((await both.json()).message, /^policy_repeats: cannot be combined with repeat_count/);
    const ep = await json('/v1/escalation-policies', 'POST', { name: 'Rounds', steps: [{ delay_minutes: 0, targets: [{ type: 'user', uuid: me }] }], policy_repeats: 1, repeat_every_minutes: 10 });
    assert.equal(ep.policy_repeats, 1);
    const schema = (await (await p.api('/openapi.json')).json()).components.schemas.EscalationPolicy;
    assert.ok(schema.properties.policy_repeats, 'policy_repeats is in the OpenAPI document');
    const start = pushes().length;
    const o = await outage(ep.uuid, 'Queue is down');
    assert.equal(pushes().length, start + 1);
    await p.advance(10 * 60_000);
    assert.equal(pushes().length, start + 2, 'round 2, 10 minutes after round 1');
    await p.advance(30 * 60_000);
    assert.equal(pushes().length, start + 2, 'no round 3');
    const timeline = (await p.core.outages.timeline(o.uuid)).map((e) => e.message ?? '');
    assert.ok(timeline.includes('step 1 (round 2) to no channels'), timeline.join('\n'));
    await p.core.outages.resolve(o.uuid, { user: (await p.store.async.users.findUser(me))!, scope: 'write', tokenId: 't' }, null);
  });

  test('the console step editor offers schedules and people as targets and saves them with their types', async () => {
    const form = await admin.get('/escalation-policies/new');
    assert.match(form.html, new RegExp(`name="step_0_targets" value="${primary}"[^>]*/?> On call: Primary`));
    assert.match(form.html, new RegExp(`name="step_0_targets" value="${me}"`));
    assert.match(form.html, /name="policy_repeats" value="0"/);
    const both = await admin.post('/escalation-policies', { name: 'Console on call', steps: '1', step_0_delay: '0', step_0_targets: [primary], repeat_count: '2', policy_repeats: '1', op: 'save' });
    assert.equal(both.status, 400);
    assert.match(both.html, /cannot be combined with repeat_count/);
    const res = await admin.post('/escalation-policies', { name: 'Console on call', steps: '1', step_0_delay: '0', step_0_targets: [primary, me, hook], repeat_count: '0', policy_repeats: '2', op: 'save' });
    assert.equal(res.status, 303, res.html.slice(0, 400));
    const saved = (await (await p.api('/v1/escalation-policies')).json()).find((x: { name: string }) => x.name === 'Console on call');
    assert.deepEqual(saved.steps[0].targets, [
      { type: 'schedule', uuid: primary },
      { type: 'user', uuid: me },
      { type: 'integration', uuid: hook },
    ]);
    assert.equal(saved.policy_repeats, 2);
  });

  test('the console overview shows a banner for a schedule with a gap in the next 7 days', async () => {
    const { html } = await admin.get('/');
    const when = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
    const banner = /<div class="alert" id="on-call-gaps"[\s\S]*?<\/div>/.exec(html)?.[0] ?? '';
    assert.match(banner, /Nobody on call in the next 7 days/);
    assert.ok(banner.includes(`Later: ${when(p.clock.now())} to ${when(p.clock.now() + 7 * 86_400_000)}`), `the whole week from now: ${banner}`);
    assert.doesNotMatch(banner, /Primary/, 'a schedule covered all week is not named');
  });

  // Last: it spends this address's allowance of the anonymous paging routes.
  test('the anonymous paging routes allow 30 requests a minute per address, then 429', async () => {
    const codes: number[] = [];
    for (let i = 0; i < 31; i++) codes.push((await fetch(`${p.url}/ack/not-a-token`)).status);
    assert.equal(codes.at(-1), 429);
    assert.ok(codes.slice(0, -1).every((c) => c === 404 || c === 429));
  });
});
