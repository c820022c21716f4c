import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { httpReceiver } from '../support/receivers.ts';
import { statusFixture, type StatusFixture } from '../support/status-fixture.ts';

// SMS subscriptions of a status page end to end: the form over HTTP, a real HTTP receiver standing
// in for Twilio's Messages API, the code read from the texted message, incidents after that.
const SID = `AC${'cd'.repeat(16)}`;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function setup(smsOn = true) {
  const twilio = await httpReceiver();
  twilio.state.answer = () => 201;
  cleanups.push(twilio.close);
  const f = await statusFixture(
    { subscribe: { enabled: true, email: true, slack: !smsOn, sms: smsOn } },
    {
      public_url: 'https://status.example.com',
      channels: [{ name: 'texts', type: 'twilio', account_sid: SID, auth_token: 'tw-token', from: '+15550001111', to: ['+15550009999'], api_url: twilio.url }],
      // Calling codes: the test numbers (+1 555…, +44 7700 900…) are fictional, valid in no country's plan.
      status_pages: { subscriptions: { sms_countries: ['+1', '+44'] } },
    },
  );
  cleanups.push(() => f.close());
  return { f, twilio };
}
const form = (f: StatusFixture, path: string, fields: Record<string, string>) => fetch(`${f.p.url}/status/acme${path}`, { method: 'POST', body: new URLSearchParams(fields), redirect: 'manual' });
/** The texts a number got: the form fields of each Messages request. */
const texts = (twilio: Awaited<ReturnType<typeof httpReceiver>>, to: string) =>
  twilio.received.map((r) => Object.fromEntries(new URLSearchParams(r.body))).filter((m) => m.To === to);
const incident = (f: StatusFixture, title: string) => f.p.api('/v3/incidents', { method: 'POST', json: { title: { en: title }, type: 'incident', statuspages: [f.page.uuid] } });

describe('SMS subscriptions', () => {
  test('a code is texted; nothing else before it is entered; wrong codes count; the right one confirms; incidents follow with an unsubscribe link', async () => {
    const { f, twilio } = await setup();
    const { p } = f;
    const shown = await (await fetch(`${p.url}/status/acme/subscribe`)).text();
    assert.match(shown, /value="sms"/);
    assert.match(shown, /Mobile number \(with country code\)/);
    assert.equal((await form(f, '/subscribe', { channel: 'sms', target: '12345' })).status, 400);

    const res = await form(f, '/subscribe', { channel: 'sms', target: '+1 (555) 123-4567' });
    assert.equal(res.status, 200);
    const page = await res.text();
    assert.match(page, /We sent a 6-digit code by SMS/);
    const s = /name="s" value="(sub_[^"]+)"/.exec(page)![1]!;
    await p.advance(0);
    const [codeSms] = texts(twilio, '+15551234567');
    assert.ok(codeSms, 'the code was texted to the normalized number');
    assert.equal(codeSms.From, '+15550001111');
    assert.equal(twilio.received[0]!.path, `/2010-04-01/Accounts/${SID}/Messages.json`);
    const code = /Acme Status code: (\d{6})/.exec(codeSms.Body!)![1]!;

    // Asking again while the code is valid texts nothing more.
    assert.equal((await form(f, '/subscribe', { channel: 'sms', target: '+15551234567' })).status, 200);
    await incident(f, 'Too early');
    await p.advance(0);
    assert.equal(texts(twilio, '+15551234567').length, 1, 'no second code, no incident before confirmation');

    const wrong = await form(f, '/subscribe/verify', { s, code: code === '000000' ? '111111' : '000000' });
    assert.equal(wrong.status, 400);
    assert.match(await wrong.text(), /code: is not the one we sent \(4 tries left\)/);
    const right = await form(f, '/subscribe/verify', { s, code });
    assert.equal(right.status, 200);
    assert.match(await right.text(), /subscription is confirmed/);
    assert.equal((await form(f, '/subscribe/verify', { s, code })).status, 404, 'a code works once');

    await incident(f, 'Checkout errors');
    await p.advance(0);
    const after = texts(twilio, '+15551234567');
    assert.equal(after.length, 2);
    assert.match(after[1]!.Body!, /^\[Acme Status\] New incident: Checkout errors\n/);
    assert.match(after[1]!.Body!, /Unsubscribe: https:\/\/status\.example\.com\/status\/acme\/subscribe\/unsubscribe\?s=sub_/);
  });

  test('five wrong codes end the pending subscription; SMS is not offered when the page does not allow it', async () => {
    const { f } = await setup();
    const page = await (await form(f, '/subscribe', { channel: 'sms', target: '+447700900123' })).text();
    const s = /name="s" value="(sub_[^"]+)"/.exec(page)![1]!;
    await f.p.advance(0);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await form(f, '/subscribe/verify', { s, code: 'abcdef' })).status);
    assert.deepEqual(statuses, [400, 400, 400, 400, 400]);
    assert.equal((await form(f, '/subscribe/verify', { s, code: 'abcdef' })).status, 404, 'gone after the fifth');
  });

  test('without subscribe.sms the channel is refused', async () => {
    const { f } = await setup(false);
    const res = await form(f, '/subscribe', { channel: 'sms', target: '+447700900123' });
    assert.equal(res.status, 400);
    assert.match(await res.text(), /channel: must be one of slack/);
    assert.equal((await form(f, '/subscribe/verify', { s: 'sub_x', code: '123456' })).status, 404);
  });
});
