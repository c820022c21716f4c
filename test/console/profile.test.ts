import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { httpReceiver } from '../support/receivers.ts';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { setupAdmin, signIn, type ConsoleClient } from '../support/console.ts';

// The console's Profile page (issue 34 point 1) over plain HTTP forms (no JavaScript): a viewer adds
// an SMS method, reads the code from a local fake Twilio, verifies it, saves rules; admins may open
// anyone's profile, a viewer only their own. Both stores (PHAROS_TEST_DRIVER).
const SID = `AC${'ef'.repeat(16)}`;
let p: TestPharos;
let twilio: Awaited<ReturnType<typeof httpReceiver>>;
let admin: ConsoleClient;
let viewer: ConsoleClient;
let viewerUuid: string;

before(async () => {
  twilio = await httpReceiver();
  twilio.state.answer = () => 201;
  p = await startTestPharos({ channels: [{ name: 'twilio', type: 'twilio', account_sid: SID, auth_token: 'tw-secret', from: '+15550001111', to: ['+15550009999'], api_url: twilio.url }] });
  admin = await setupAdmin(p);
  const v = await p.core.accounts.create({ email: 'vera@example.com', name: 'Vera Viewer', role: 'viewer', password: 'viewer password 1' }, { type: 'system', id: 'test', name: 'test' });
  viewerUuid = v.uuid;
  viewer = await signIn(p, 'vera@example.com', 'viewer password 1');
});
after(async () => {
  await p?.cleanup();
  await twilio?.close();
});

const codeTo = (to: string) => {
  const m = twilio.received.map((r) => Object.fromEntries(new URLSearchParams(r.body))).filter((f) => f.To === to).at(-1);
  return /code: (\d{6})/.exec(m?.Body ?? '')?.[1];
};

describe('console profile', () => {
  test('a viewer adds an SMS method, verifies it with the texted code and orders rules', async () => {
    const shown = await viewer.get('/profile');
    assert.equal(shown.status, 200);
    assert.match(shown.html, /Your profile/);
    assert.match(shown.html, /href="\/profile"/);

    const details = await viewer.post('/profile/details', { name: 'Vera V.', phone: '+44 7700 900123' });
    assert.equal(details.status, 200);
    assert.match(details.html, /Details saved/);
    const badPhone = await viewer.post('/profile/details', { name: 'Vera V.', phone: 'nope' });
    assert.equal(badPhone.status, 400);
    assert.match(badPhone.html, /data-error-for="phone"/);

    const added = await viewer.post('/profile/methods', { kind: 'sms', address: '+44 7700 900123', label: 'mobile' });
    assert.equal(added.status, 200);
    assert.match(added.html, /We sent a 6-digit code to \+4•+23/);
    assert.match(added.html, /unverified/);
    const cm = /data-method="(cm_[^"]+)"/.exec(added.html)![1]!;
    const code = codeTo('+447700900123');
    assert.ok(code, 'the fake Twilio got the code');

    const wrong = await viewer.post(`/profile/methods/${cm}/verify`, { code: code === '000000' ? '111111' : '000000' });
    assert.equal(wrong.status, 400);
    assert.match(wrong.html, /4 attempts left/);
    const ok = await viewer.post(`/profile/methods/${cm}/verify`, { code });
    assert.equal(ok.status, 200);
    assert.match(ok.html, /is verified/);
    assert.match(ok.html, /data-status="up">verified/);

    const rules = await viewer.post('/profile/rules', { method_0: cm, delay_0: '5', method_1: '', delay_1: '' });
    assert.equal(rules.status, 200);
    assert.match(rules.html, /Notification rules saved/);
    assert.deepEqual(await p.core.people.rules(viewerUuid), [{ methodUuid: cm, delayMinutes: 5 }]);
  });

  test("a viewer cannot open someone else's profile; an admin can", async () => {
    const adminUuid = (await p.core.people.members()).find((m) => m.email === 'admin@example.com')!.uuid;
    assert.equal((await viewer.get(`/profile/${adminUuid}`)).status, 403);
    assert.equal((await viewer.post(`/profile/${adminUuid}/details`, { name: 'x' })).status, 403);
    const seen = await admin.get(`/profile/${viewerUuid}`);
    assert.equal(seen.status, 200);
    assert.match(seen.html, /Profile of Vera V\./);
    assert.match(seen.html, /mobile/);
    assert.match(seen.html, /SMS \(Twilio\) \+4•+23 \(mobile\)/, 'the method\'s address is shown masked (the profile phone is the team\'s to see)');

    // A disabled account is paged no more (its methods and rules stay).
    const actor = { type: 'system' as const, id: 'test', name: 'test' };
    const live = await p.core.people.page(viewerUuid, { outageUuid: 'outage_v', title: 'DOWN', text: 'x' });
    assert.equal(live.scheduled.length, 1, 'the 5-minute SMS rule is scheduled while the account is live');
    await p.core.people.cancelPages('outage_v');
    await p.core.accounts.setDisabled(viewerUuid, true, actor);
    assert.deepEqual(await p.core.people.page(viewerUuid, { outageUuid: 'outage_w', title: 'DOWN', text: 'x' }), { tried: [], scheduled: [], reached: false });
  });
});
