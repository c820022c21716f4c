import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { httpReceiver } from '../support/receivers.ts';
import { rmSync } from 'node:fs';
import { startTestPharos, tempDir, type TestPharos } from '../support/pharos.ts';
import { ManualClock } from '../support/manual-clock.ts';

// Team members and contact methods (issue 34 point 1) over HTTP, on the store under test: a local HTTP
// receiver stands in for Twilio (Messages and Calls), the codes are read from what it received, and
// delayed page steps are driven by the manual clock.
const SID = `AC${'ab'.repeat(16)}`;
const MESSAGES = `/2010-04-01/Accounts/${SID}/Messages.json`;
const CALLS = `/2010-04-01/Accounts/${SID}/Calls.json`;

let p: TestPharos;
let twilio: Awaited<ReturnType<typeof httpReceiver>>;
let me: string;

before(async () => {
  twilio = await httpReceiver();
  twilio.state.answer = () => 201;
  p = await startTestPharos({ channels: [{ name: 'twilio-account', type: 'twilio', account_sid: SID, auth_token: 'tw-secret-token', from: '+15550001111', to: ['+15550009999'], api_url: twilio.url }] });
  me = (await (await p.api('/v1/me')).json()).uuid;
});
after(async () => {
  await p?.cleanup();
  await twilio?.close();
});

/** Form fields of the requests Twilio got at `path` for number `to`. */
const sent = (path: string, to: string) => twilio.received.filter((r) => r.path === path).map((r) => Object.fromEntries(new URLSearchParams(r.body))).filter((f) => f.To === to);
/** The 6 digits of the last code texted to `to` (or spoken: "1, 2, 3, …"). */
function lastCode(path: string, to: string): string {
  const last = sent(path, to).at(-1);
  assert.ok(last, `a request to ${path} for ${to}`);
  const text = path === CALLS ? last.Twiml!.replace(/[^\d]/g, '').slice(0, 6) : /code: (\d{6})/.exec(last.Body!)![1]!;
  assert.match(text, /^\d{6}$/);
  return text;
}
const add = async (kind: string, address: string) => {
  const res = await p.api('/v1/me/contact-methods', { method: 'POST', json: { kind, address } });
  assert.equal(res.status, 201, await res.clone().text());
  return res.json();
};
const verify = (uuid: string, code: string) => p.api(`/v1/me/contact-methods/${uuid}/verify`, { method: 'POST', json: { code } });

describe('team members and contact methods', () => {
  test('team members list the console users with name, email, phone and role; a phone is normalized', async () => {
    const set = await p.api('/v1/me', { method: 'PATCH', json: { name: 'Ada Admin', phone: '+1 (555) 123-4567' } });
    assert.equal(set.status, 200);
    const list = await (await p.api('/v1/team-members')).json();
    const ada = list.find((m: { uuid: string }) => m.uuid === me);
    // The installation token's user (admin@localhost) is no console account: its stored role is viewer.
    assert.deepEqual(ada, { uuid: me, email: 'admin@localhost', name: 'Ada Admin', phone: '+15551234567', accountRole: 'viewer', role: 'viewer', ssoPictureUrl: null, disabled: false });
    const bad = await p.api('/v1/me', { method: 'PATCH', json: { phone: '12345' } });
    assert.equal(bad.status, 400);
    assert.match((await bad.json()).message, /^phone:/);
    assert.equal((await p.api('/v1/team-members/user_nobody')).status, 404);
  });

  test('an SMS method is verified by the texted code; page() texts at once and calls after the rule’s minutes; cancelPages stops the call', async () => {
    const sms = await add('sms', '+1 555 123 4567');
    assert.equal(sms.verified, false);
    assert.equal(sms.code_sent, true);
    assert.equal(sms.address_hint, '+1••••••••67');
    const code = lastCode(MESSAGES, '+15551234567');
    // The address never comes back whole; the auth token never leaves for anything but Twilio.
    assert.doesNotMatch(JSON.stringify(await (await p.api('/v1/me/contact-methods')).json()), /5551234567/);
    assert.equal((await p.api(`/v1/me/contact-methods/${sms.uuid}/send-code`, { method: 'POST' })).status, 429, 'a second code within a minute is refused');
    assert.equal((await verify(sms.uuid, code === '000000' ? '111111' : '000000')).status, 400);
    const ok = await verify(sms.uuid, code);
    assert.equal(ok.status, 200);
    assert.equal((await ok.json()).verified, true);

    const voice = await add('voice', '+15551234567');
    assert.equal(sent(CALLS, '+15551234567').length, 1, 'the code of a voice method is spoken in a call');
    assert.equal((await verify(voice.uuid, lastCode(CALLS, '+15551234567'))).status, 200);

    const rules = await p.api('/v1/me/notification-rules', { method: 'PUT', json: { rules: [{ method_uuid: sms.uuid, delay_minutes: 0 }, { method_uuid: voice.uuid, delay_minutes: 10 }] } });
    assert.equal(rules.status, 200);
    assert.deepEqual(await rules.json(), { rules: [{ method_uuid: sms.uuid, kind: 'sms', delay_minutes: 0 }, { method_uuid: voice.uuid, kind: 'voice', delay_minutes: 10 }], default: false });

    const texts = sent(MESSAGES, '+15551234567').length;
    const calls = sent(CALLS, '+15551234567').length;
    const result = await p.core.people.page(me, { outageUuid: 'outage_one', title: 'DOWN: API', text: 'API is down since 12:00', ackUrl: 'https://pharos.example/ack/abc' });
    assert.deepEqual(result.tried.map((t) => [t.kind, t.ok]), [['sms', true]]);
    assert.equal(result.reached, true);
    assert.deepEqual(result.scheduled.map((s) => [s.kind, s.delayMinutes, s.dueAt - p.clock.now()]), [['voice', 10, 600_000]]);
    const text = sent(MESSAGES, '+15551234567').at(-1)!;
    assert.equal(sent(MESSAGES, '+15551234567').length, texts + 1);
    assert.match(text.Body!, /DOWN: API/);
    assert.match(text.Body!, /https:\/\/pharos\.example\/ack\/abc/);

    await p.advance(9 * 60_000);
    await p.core.people.settled();
    assert.equal(sent(CALLS, '+15551234567').length, calls, 'no call before 10 minutes');
    await p.advance(60_000);
    await p.core.people.settled();
    assert.equal(sent(CALLS, '+15551234567').length, calls + 1, 'the call after 10 minutes');
    assert.match(sent(CALLS, '+15551234567').at(-1)!.Twiml!, /<Say>Pharos page\. DOWN: API\./);
    assert.equal(await p.store.async.people.pendingCount('outage_one'), 0);

    // A second outage: acknowledged (cancelPages) before the 10 minutes: no call.
    await p.core.people.page(me, { outageUuid: 'outage_two', title: 'DOWN: Web', text: 'Web is down' });
    assert.equal(await p.store.async.people.pendingCount('outage_two'), 1);
    assert.equal(await p.core.people.cancelPages('outage_two'), 1);
    await p.advance(11 * 60_000);
    await p.core.people.settled();
    assert.equal(sent(CALLS, '+15551234567').length, calls + 1, 'a cancelled step is not sent');
  });

  test('five wrong codes lock the code; unverified methods are never paged; other people’s methods are 404', async () => {
    const sms = await add('sms', '+15557654321');
    const code = lastCode(MESSAGES, '+15557654321');
    const wrong = code === '999999' ? '888888' : '999999';
    for (let i = 1; i <= 4; i++) {
      const res = await verify(sms.uuid, wrong);
      assert.equal(res.status, 400);
      assert.match((await res.json()).message, new RegExp(`${5 - i} attempts? left`));
    }
    assert.equal((await verify(sms.uuid, wrong)).status, 429);
    const locked = await verify(sms.uuid, code);
    assert.equal(locked.status, 429, 'the right code no longer works after five wrong ones');
    assert.equal((await locked.json()).code, 'contact_methods.locked');

    // Default rules (none): every verified method at once; the unverified one is left out.
    assert.equal((await p.api('/v1/me/notification-rules', { method: 'PUT', json: { rules: [] } })).status, 200);
    const before = sent(MESSAGES, '+15557654321').length;
    const result = await p.core.people.page(me, { outageUuid: 'outage_three', title: 'DOWN: DB', text: 'DB is down' });
    assert.deepEqual(result.tried.map((t) => t.kind).sort(), ['sms', 'voice']);
    assert.deepEqual(result.scheduled, []);
    assert.equal(sent(MESSAGES, '+15557654321').length, before, 'the unverified number got nothing');
    await p.core.people.cancelPages('outage_three');

    assert.equal((await p.api(`/v1/me/contact-methods/cm_nope/verify`, { method: 'POST', json: { code: '123456' } })).status, 404);
    const badRule = await p.api('/v1/me/notification-rules', { method: 'PUT', json: { rules: [{ method_uuid: 'cm_nope', delay_minutes: 5 }] } });
    assert.equal(badRule.status, 400);
    assert.match((await badRule.json()).message, /^rules\.0\.method_uuid/);
    const badAddress = await p.api('/v1/me/contact-methods', { method: 'POST', json: { kind: 'sms', address: 'call me' } });
    assert.equal(badAddress.status, 400);
    assert.match((await badAddress.json()).message, /^address:/);
  });

  test('a code expires after 10 minutes; codes are sent at most once a minute and five times an hour', async () => {
    const to = '+15557770000';
    const m = await add('sms', to);
    const first = lastCode(MESSAGES, to);
    await p.advance(10 * 60_000);
    const expired = await verify(m.uuid, first);
    assert.equal(expired.status, 400);
    assert.equal((await expired.json()).code, 'contact_methods.code_expired');
    const again = (path: string) => p.api(`/v1/me/contact-methods/${m.uuid}/${path}`, { method: 'POST' });
    // Sends 2 to 5 of the hour (the first was at add time, 10 minutes ago), a minute apart.
    for (let i = 2; i <= 5; i++) {
      assert.equal((await again('send-code')).status, 200, `send ${i}`);
      await p.advance(60_000);
    }
    const sixth = await again('send-code');
    assert.equal(sixth.status, 429);
    assert.equal((await sixth.json()).code, 'contact_methods.too_many_codes');
    assert.equal(sent(MESSAGES, to).length, 5);
    await p.advance(60 * 60_000);
    assert.equal((await again('send-code')).status, 200, 'a new hour, a new code');
    assert.equal((await verify(m.uuid, lastCode(MESSAGES, to))).status, 200, 'the newest code verifies');
    assert.equal((await again('send-code')).status, 409, 'a verified method needs no code');
  });

  test('a person manages their own methods; another person’s answer 403 unless an admin asks', async () => {
    const bob = await p.core.users.createToken({ email: 'bob@example.com', name: 'Bob', scope: 'write' }, { type: 'system', id: 'test', name: 'test' });
    const bobUuid = bob.info.user.uuid;
    const mine = await p.api('/v1/me/contact-methods', { method: 'POST', token: bob.token, json: { kind: 'email', address: 'bob@example.com', label: 'work' } });
    assert.equal(mine.status, 201);
    const made = await mine.json();
    assert.equal(made.address_hint, 'b•••@example.com');
    assert.equal(made.code_sent, false, 'no email integration: the code cannot go out');
    assert.match(made.code_error, /no enabled email integration/);
    assert.equal((await p.api(`/v1/team-members/${me}/contact-methods`, { token: bob.token })).status, 403);
    assert.equal((await p.api(`/v1/me/contact-methods/${made.uuid}`)).status, 404, "someone else's method is not found under /v1/me");
    const asAdmin = await p.api(`/v1/team-members/${bobUuid}/contact-methods`);
    assert.equal(asAdmin.status, 200);
    assert.deepEqual((await asAdmin.json()).map((m: { uuid: string }) => m.uuid), [made.uuid]);
    const renamed = await p.api(`/v1/team-members/${bobUuid}/contact-methods/${made.uuid}`, { method: 'PATCH', json: { label: 'office' } });
    assert.equal((await renamed.json()).label, 'office');
    assert.equal((await p.api(`/v1/team-members/${me}`, { method: 'PATCH', token: bob.token, json: { name: 'Mallory' } })).status, 403);
    assert.equal((await p.api(`/v1/me/contact-methods/${made.uuid}`, { method: 'DELETE', token: bob.token })).status, 200);
    // Nobody unknown is paged (a disabled account answers the same: no steps, reached false).
    assert.deepEqual(await p.core.people.page('user_nobody', { outageUuid: 'outage_x', title: 't', text: 'x' }), { tried: [], scheduled: [], reached: false });

    // Each change is an update of the user in the audit log, by whoever made it; addresses masked.
    const log = (await (await p.api(`/v1/audit-log?resource_uuid=${bobUuid}`)).json()) as { entries: Array<{ actor: { type: string; name: string }; resource_type: string; diff: Record<string, { before?: unknown; after?: unknown }> }> };
    const keys = log.entries.map((e) => Object.keys(e.diff).join(',')).reverse();
    assert.deepEqual(keys, [`contact_methods.${made.uuid}`, `contact_methods.${made.uuid}.label`, `contact_methods.${made.uuid}`]);
    assert.deepEqual(log.entries.at(-1)!.diff[`contact_methods.${made.uuid}`], { after: { kind: 'email', label: 'work', address: 'b•••@example.com', verified: false } });
    assert.ok(log.entries.every((e) => e.resource_type === 'user'));
    assert.doesNotMatch(JSON.stringify(log), /"address":"bob@example\.com"/);
  });

  test('the OpenAPI document has the routes', async () => {
    const doc = (await (await fetch(`${p.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    for (const path of ['/v1/team-members', '/v1/team-members/{uuid}/contact-methods', '/v1/me/contact-methods/{method}/verify', '/v1/me/notification-rules']) assert.ok(doc.paths[path], path);
  });
});

describe('pending page steps across a restart', () => {
  test('a delayed step stored before a restart is sent when due by the next start', async () => {
    const dataDir = tempDir();
    const clock = new ManualClock();
    const config = { data_dir: dataDir, channels: [{ name: 'twilio-account', type: 'twilio', account_sid: SID, auth_token: 'tw-secret-token', from: '+15550001111', to: ['+15550009999'], api_url: twilio.url }] };
    let first: TestPharos | null = await startTestPharos(config, clock);
    let second: TestPharos | null = null;
    try {
      const user = (await (await first.api('/v1/me')).json()).uuid;
      const to = '+15559990000';
      const made = await (await first.api('/v1/me/contact-methods', { method: 'POST', json: { kind: 'sms', address: to } })).json();
      assert.equal((await first.api(`/v1/me/contact-methods/${made.uuid}/verify`, { method: 'POST', json: { code: lastCode(MESSAGES, to) } })).status, 200);
      assert.equal((await first.api('/v1/me/notification-rules', { method: 'PUT', json: { rules: [{ method_uuid: made.uuid, delay_minutes: 5 }] } })).status, 200);
      const r = await first.core.people.page(user, { outageUuid: 'outage_restart', title: 'DOWN: Restarted', text: 'still down' });
      assert.deepEqual(r.tried, []);
      assert.equal(r.reached, false);
      assert.equal(r.scheduled.length, 1);
      await first.close();
      first = null;
      const before = sent(MESSAGES, to).length;
      second = await startTestPharos(config, clock);
      await second.advance(5 * 60_000);
      await second.core.people.settled();
      assert.equal(sent(MESSAGES, to).length, before + 1, 'the step was sent by the new start');
      assert.match(sent(MESSAGES, to).at(-1)!.Body!, /DOWN: Restarted/);
    } finally {
      await first?.close();
      await second?.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('every kind of contact method', () => {
  test('email, ntfy, Pushover and Telegram codes go out through the provider integrations with the person’s address', async () => {
    const { smtpReceiver } = await import('../support/receivers.ts');
    const hooks = await httpReceiver();
    const smtp = await smtpReceiver();
    const base = hooks.url;
    const q = await startTestPharos({
      channels: [
        { name: 'mail', type: 'email', from: 'pharos@example.com', to: ['ops@example.com'], smtp: { host: '127.0.0.1', port: smtp.port } },
        { name: 'ntfy', type: 'ntfy', server: `${base}/ntfy`, topic: 'team-alerts' },
        { name: 'pushover', type: 'pushover', user_key: 'uTeamKey', app_token: 'aAppToken', api_url: `${base}/pushover` },
        { name: 'telegram', type: 'telegram', bot_token: '1:BOT', chat_id: '42', api_url: `${base}/telegram` },
      ],
    });
    try {
      const add = async (kind: string, address: string) => {
        const res = await q.api('/v1/me/contact-methods', { method: 'POST', json: { kind, address } });
        const body = await res.json();
        assert.equal(res.status, 201, body.message);
        assert.equal(body.code_sent, true, `${kind}: ${body.code_error}`);
        return body.uuid as string;
      };
      const verifies = async (uuid: string, text: string) => {
        const code = /code: (\d{6})/.exec(text)?.[1];
        assert.ok(code, text.slice(0, 300));
        assert.equal((await q.api(`/v1/me/contact-methods/${uuid}/verify`, { method: 'POST', json: { code } })).status, 200);
      };
      const email = await add('email', 'ada@example.org');
      assert.deepEqual(smtp.mails.at(-1)!.to, ['ada@example.org']);
      await verifies(email, smtp.mails.at(-1)!.raw.replace(/=\r?\n/g, ''));

      const ntfy = await add('ntfy', 'ada-pager-7f3');
      const ntfyReq = hooks.received.at(-1)!;
      assert.equal(JSON.parse(ntfyReq.body).topic, 'ada-pager-7f3');
      await verifies(ntfy, ntfyReq.body);

      const pushover = await add('pushover', 'uAdaKey01234567890123456789012');
      const poReq = hooks.received.at(-1)!;
      assert.ok(poReq.path.startsWith('/pushover'));
      assert.match(poReq.body, /uAdaKey01234567890123456789012/);
      assert.doesNotMatch(poReq.body, /uTeamKey/);
      await verifies(pushover, poReq.body);

      const telegram = await add('telegram', '-100123456');
      const tgReq = hooks.received.at(-1)!;
      assert.equal(JSON.parse(tgReq.body).chat_id, '-100123456');
      await verifies(telegram, tgReq.body);

      const listed = await (await q.api('/v1/me/contact-methods')).json();
      assert.deepEqual(listed.map((m: { kind: string; verified: boolean }) => [m.kind, m.verified]), [['email', true], ['ntfy', true], ['pushover', true], ['telegram', true]]);
      const paged = await q.core.people.page((await (await q.api('/v1/me')).json()).uuid, { outageUuid: 'outage_all', title: 'DOWN: all', text: 'everything' });
      assert.deepEqual(paged.tried.map((t) => [t.kind, t.ok]), [['email', true], ['ntfy', true], ['pushover', true], ['telegram', true]]);
    } finally {
      await q.cleanup();
      await hooks.close();
      await smtp.close();
    }
  });
});
