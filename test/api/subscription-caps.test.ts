import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { httpReceiver, smtpReceiver } from '../support/receivers.ts';
import { statusFixture, type StatusFixture } from '../support/status-fixture.ts';
import { rmSync } from 'node:fs';
import { ManualClock } from '../support/manual-clock.ts';
import { sharedPostgres, startTestPharos, tempDir, TEST_DRIVER, type TestPharos } from '../support/pharos.ts';

// What anonymous visitors can make the operator pay for (issue 30 point 3): texts to numbers of any
// country, a flood of codes to many numbers (one number block) from many addresses, a second text
// to a number before its code was typed back, and mails to one mailbox under many plus-addresses.
// A real Pharos over HTTP, a real HTTP receiver standing in for Twilio, a real SMTP server; the
// concurrent cases are real concurrent requests (Promise.all of fetches from distinct addresses).
const SID = `AC${'ef'.repeat(16)}`;
const HOUR = 3_600_000;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});
type Twilio = Awaited<ReturnType<typeof httpReceiver>>;

/** A page offering SMS (and email) with a twilio channel to a local receiver; `subscriptions` merged over the test's. */
async function smsSetup(subscriptions: Record<string, unknown>): Promise<{ f: StatusFixture; twilio: Twilio }> {
  const twilio = await httpReceiver();
  twilio.state.answer = () => 201;
  cleanups.push(twilio.close);
  const smtp = await smtpReceiver();
  cleanups.push(smtp.close);
  const f = await statusFixture(
    { subscribe: { enabled: true, email: true, sms: true } },
    {
      public_url: 'https://status.example.com',
      channels: [
        { name: 'texts', type: 'twilio', account_sid: SID, auth_token: 'tw-token', from: '+15550001111', to: ['+15550009999'], api_url: twilio.url },
        { name: 'mail', type: 'email', from: 'status@example.com', to: ['ops@example.com'], smtp: { host: '127.0.0.1', port: smtp.port } },
      ],
      status_pages: { trust_proxy: true, subscriptions: { per_address_per_hour: 1000, per_page_per_hour: 1000, ...subscriptions } },
    },
  );
  cleanups.push(() => f.close());
  return { f, twilio };
}
let nextIp = 1;
/** A distinct client address for every request (as from many machines). */
const freshIp = () => `203.0.${Math.floor(nextIp / 250)}.${(nextIp++ % 250) + 1}`;
const post = (f: StatusFixture, path: string, fields: Record<string, string>, page = 'acme') =>
  fetch(`${f.p.url}/status/${page}${path}`, { method: 'POST', body: new URLSearchParams(fields), headers: { 'x-forwarded-for': freshIp() }, redirect: 'manual' });
const sms = (f: StatusFixture, number: string, page = 'acme') => post(f, '/subscribe', { channel: 'sms', target: number }, page);
const bodies = (twilio: Twilio) => twilio.received.map((r) => Object.fromEntries(new URLSearchParams(r.body)));
const textsTo = (twilio: Twilio, to: string) => bodies(twilio).filter((m) => m.To === to);
const codeOf = (twilio: Twilio, to: string) => /code: (\d{6})/.exec(textsTo(twilio, to).at(-1)!.Body!)![1]!;
const subscriberOf = async (res: Response) => /name="s" value="(sub_[^"]+)"/.exec(await res.text())![1]!;
/** Statuses of `n` requests sent at once. */
const statuses = async (rs: Array<Promise<Response>>) => (await Promise.all(rs)).map((r) => r.status).sort();
const count = (xs: number[], v: number) => xs.filter((x) => x === v).length;

describe('SMS subscriptions are off until an admin names countries', () => {
  test('a twilio channel and a page allowing SMS: still not offered without status_pages.subscriptions.sms_countries; nothing texted', async () => {
    const { f, twilio } = await smsSetup({});
    const form = await (await fetch(`${f.p.url}/status/acme/subscribe`)).text();
    assert.doesNotMatch(form, /value="sms"/);
    const res = await sms(f, '+447911123456');
    assert.equal(res.status, 400);
    assert.match(await res.text(), /channel: must be one of email/);
    await f.p.advance(0);
    assert.equal(twilio.received.length, 0);
  });

  test('only numbers of the allowed countries (ISO code: the number\'s own country; calling code: all its numbers)', async () => {
    const { f, twilio } = await smsSetup({ sms_countries: ['GB', 'US'] });
    assert.match(await (await fetch(`${f.p.url}/status/acme/subscribe`)).text(), /value="sms"/);
    for (const [number, why] of [
      ['+88216123456', 'international networks (+882)'],
      ['+18765550123', 'Jamaica shares +1 with the US but is not the US'],
      ['+33612345678', 'France'],
      ['+4479111234', 'too short to be a GB number'],
      ['+447911123456', 'Guernsey (+44 7911) is not GB'],
    ] as const) {
      const res = await sms(f, number);
      assert.equal(res.status, 400, why);
      assert.match(await res.text(), /target: must be a mobile number of an allowed country \(GB, US\)/, why);
    }
    assert.equal((await sms(f, '+44 7922 123456')).status, 200);
    assert.equal((await sms(f, '+1 201 555 0123')).status, 200);
    await f.p.advance(0);
    assert.deepEqual(bodies(twilio).map((m) => m.To).sort(), ['+12015550123', '+447922123456']);

    const byCode = await smsSetup({ sms_countries: ['+1'] });
    assert.equal((await sms(byCode.f, '+18765550123')).status, 200, 'a calling code admits every number under it');
    assert.equal((await sms(byCode.f, '+447911123456')).status, 400);
  });
});

describe('SMS caps hold under concurrent subscribe requests from many addresses', () => {
  test('global: at most sms_per_hour texts in an hour, sms_per_day in a day, all pages together', async () => {
    const { f, twilio } = await smsSetup({ sms_countries: ['+44'], sms_per_hour: 5, sms_per_day: 8 });
    // 20 numbers, each in its own number block, from 20 addresses, all at once.
    const number = (i: number) => `+4479${String(i).padStart(2, '0')}123456`;
    const first = await statuses(Array.from({ length: 20 }, (_, i) => sms(f, number(i))));
    assert.equal(count(first, 200), 5);
    assert.equal(count(first, 429), 15);
    const over = await sms(f, number(50));
    assert.equal(over.status, 429);
    assert.match(await over.text(), /SMS subscriptions are paused: the texts of this hour are used up; try again later or subscribe by email/);
    await f.p.advance(0);
    assert.equal(twilio.received.length, 5);

    await f.p.advance(HOUR);
    const second = await statuses(Array.from({ length: 20 }, (_, i) => sms(f, number(60 + i))));
    assert.equal(count(second, 200), 3, 'the day allows 8');
    await f.p.advance(0);
    assert.equal(twilio.received.length, 8);
  });

  test('per number block: at most sms_per_prefix_per_hour codes to numbers sharing their first sms_prefix_digits digits', async () => {
    const { f, twilio } = await smsSetup({ sms_countries: ['+44'], sms_prefix_digits: 8, sms_per_prefix_per_hour: 3, sms_per_prefix_per_day: 4 });
    const block = (i: number) => `+44791112${String(i).padStart(4, '0')}`;
    const first = await statuses(Array.from({ length: 15 }, (_, i) => sms(f, block(i))));
    assert.equal(count(first, 200), 3);
    assert.equal(count(first, 429), 12);
    const over = await sms(f, block(99));
    assert.match(await over.text(), /too many codes to numbers like this one/);
    assert.equal((await sms(f, '+447922123456')).status, 200, 'another block still gets its code');
    await f.p.advance(HOUR);
    assert.equal(count(await statuses(Array.from({ length: 5 }, (_, i) => sms(f, block(20 + i)))), 200), 1, 'the day allows 4');
    await f.p.advance(0);
    assert.equal(bodies(twilio).filter((m) => m.To!.startsWith('+44791112')).length, 4);
  });

  test('texts to confirmed subscribers count too: an incident past the cap is not texted (the outbox row fails and says why)', async () => {
    const { f, twilio } = await smsSetup({ sms_countries: ['GB'], sms_per_hour: 4 });
    const numbers = ['+447911000001', '+447922000002', '+447933000003'];
    for (const n of numbers) {
      const s = await subscriberOf(await sms(f, n));
      await f.p.advance(0);
      assert.equal((await post(f, '/subscribe/verify', { s, code: codeOf(twilio, n) })).status, 200);
    }
    const listed = await (await f.p.api(`/v2/statuspages/${f.page.uuid}/subscribers?type=sms`)).json();
    assert.deepEqual(listed.subscribers.map((x: { phone: string; confirmed: boolean }) => [x.phone, x.confirmed]), numbers.map((n) => [n, true]), 'the API lists SMS subscribers');
    await f.p.api('/v3/incidents', { method: 'POST', json: { title: { en: 'Checkout errors' }, type: 'incident', statuspages: [f.page.uuid] } });
    await f.p.advance(0);
    assert.equal(twilio.received.length, 4, '3 codes and 1 incident text');
    const failed = f.p.store.alerts.all().filter((a) => a.failedAt !== null);
    assert.equal(failed.length, 2);
    assert.match(failed[0]!.lastError ?? '', /not sent: status_pages\.subscriptions\.sms_per_hour \(4\) is reached/);
  });
});

describe('no second text to a number before its code is typed back', () => {
  test('not on another page, not after the code expired, not after wrong codes ended it; after the code is typed back, yes', async () => {
    const { f, twilio } = await smsSetup({ sms_countries: ['+44'] });
    const beta = await f.p.api('/v2/statuspages', { method: 'POST', json: { name: 'Beta', subdomain: 'beta', subscribe: { enabled: true, sms: true } } });
    assert.equal(beta.status, 201, await beta.clone().text());
    const n1 = '+447911123456';
    const s1 = await subscriberOf(await sms(f, n1));
    await f.p.advance(0);
    assert.equal(textsTo(twilio, n1).length, 1);
    const elsewhere = await sms(f, n1, 'beta');
    assert.equal(elsewhere.status, 429);
    assert.match(await elsewhere.text(), /target: a code was texted to this number and has not been entered yet; enter it, or try again in 24 h/);
    assert.equal((await sms(f, n1)).status, 200, 'the same page shows the code form again');
    await f.p.advance(0);
    assert.equal(textsTo(twilio, n1).length, 1);
    assert.equal((await post(f, '/subscribe/verify', { s: s1, code: codeOf(twilio, n1) })).status, 200);
    assert.equal((await sms(f, n1, 'beta')).status, 200, 'typed back: the next page may text a code');
    await f.p.advance(0);
    assert.equal(textsTo(twilio, n1).length, 2);

    // Five wrong codes end the pending subscription, not the wait; nor does the code's expiry.
    const n2 = '+447922654321';
    const s2 = await subscriberOf(await sms(f, n2));
    for (let i = 0; i < 5; i++) await post(f, '/subscribe/verify', { s: s2, code: 'abcdef' });
    assert.equal((await sms(f, n2)).status, 429);
    await f.p.advance(16 * 60_000);
    assert.equal((await sms(f, n2)).status, 429);
    await f.p.advance(0);
    assert.equal(textsTo(twilio, n2).length, 1);
    await f.p.advance(24 * HOUR);
    assert.equal((await sms(f, n2)).status, 200, 'after the wait, one new code');
    await f.p.advance(0);
    assert.equal(textsTo(twilio, n2).length, 2);
  });
});

describe('plus-addressed mail counts as one mailbox', () => {
  test('victim+N@ and dotted Gmail spellings share email_per_mailbox_per_hour / _per_day, even at once', async () => {
    const f = await statusFixture({}, { status_pages: { trust_proxy: true, subscriptions: { per_address_per_hour: 1000, per_page_per_hour: 1000, email_per_mailbox_per_hour: 2, email_per_mailbox_per_day: 3 } } });
    cleanups.push(() => f.close());
    const mail = (target: string) => post(f, '/subscribe', { channel: 'email', target });
    const plus = await statuses(Array.from({ length: 30 }, (_, i) => mail(`victim+${i}@example.com`)));
    assert.equal(count(plus, 200), 2);
    assert.equal(count(plus, 429), 28);
    const over = await mail('Victim+x@Example.com');
    assert.match(await over.text(), /too many confirmation mails to this mailbox; try again later/);
    assert.equal((await mail('other@example.com')).status, 200, 'another mailbox is not affected');

    const gmail = await statuses(['j.doe@gmail.com', 'jdoe+a@googlemail.com', 'J.D.O.E@gmail.com', 'jd.oe+b@gmail.com'].map(mail));
    assert.equal(count(gmail, 200), 2);
    await f.p.advance(HOUR);
    assert.equal(count(await statuses(Array.from({ length: 5 }, (_, i) => mail(`victim+late${i}@example.com`))), 200), 1, 'the day allows 3');
    await f.p.advance(0);
    const to = f.smtp.mails.flatMap((m) => m.to);
    assert.equal(to.filter((a) => a.toLowerCase().startsWith('victim')).length, 3);
    assert.equal(to.filter((a) => /gmail|googlemail/.test(a)).length, 2);
  });
});

describe('the counts are in the database: across restarts and instances', () => {
  /** A bare Pharos with an SMS page `acme` (twilio to `twilio`), on `clock`. */
  async function bare(twilio: Twilio, clock: ManualClock, extra: Record<string, unknown>, page: boolean): Promise<TestPharos> {
    const p = await startTestPharos(
      {
        ...extra,
        channels: [{ name: 'texts', type: 'twilio', account_sid: SID, auth_token: 'tw-token', from: '+15550001111', to: ['+15550009999'], api_url: twilio.url }],
        status_pages: { trust_proxy: true, subscriptions: { sms_countries: ['+44'], sms_per_hour: 4, per_address_per_hour: 1000, per_page_per_hour: 1000 } },
      },
      clock,
    );
    if (page) assert.equal((await p.api('/v2/statuspages', { method: 'POST', json: { name: 'Acme', subdomain: 'acme', subscribe: { enabled: true, sms: true } } })).status, 201);
    return p;
  }
  const smsTo = (p: TestPharos, number: string) =>
    fetch(`${p.url}/status/acme/subscribe`, { method: 'POST', body: new URLSearchParams({ channel: 'sms', target: number }), headers: { 'x-forwarded-for': freshIp() }, redirect: 'manual' });
  const numberOf = (i: number) => `+4478${String(i).padStart(2, '0')}123456`;

  test('a restart forgets neither the hour\'s texts nor a number waiting for its code', async () => {
    const twilio = await httpReceiver();
    twilio.state.answer = () => 201;
    cleanups.push(twilio.close);
    const clock = new ManualClock();
    const dataDir = tempDir();
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const first = await bare(twilio, clock, { data_dir: dataDir }, true);
    for (let i = 0; i < 3; i++) assert.equal((await smsTo(first, numberOf(i))).status, 200);
    await first.advance(0);
    await first.close();
    const second = await bare(twilio, clock, { data_dir: dataDir }, false);
    cleanups.push(() => second.cleanup());
    assert.equal((await smsTo(second, numberOf(0))).status, 200, 'the same page and number: the code form again, nothing sent');
    const statuses2 = await statuses([smsTo(second, numberOf(10)), smsTo(second, numberOf(11))]);
    assert.deepEqual(statuses2, [200, 429], 'one text left of 4');
    await second.advance(0);
    assert.equal(twilio.received.length, 4);
  });

  test('two instances on one PostgreSQL database share the caps under concurrent requests', { skip: TEST_DRIVER !== 'postgres' && 'PostgreSQL only (instances share a database)' }, async () => {
    const twilio = await httpReceiver();
    twilio.state.answer = () => 201;
    cleanups.push(twilio.close);
    const clock = new ManualClock();
    const storage = { driver: 'postgres', postgres_url: await (await sharedPostgres()).createDatabase(`caps${process.pid}`) };
    const a = await bare(twilio, clock, { storage }, true);
    cleanups.push(() => a.cleanup());
    const b = await bare(twilio, clock, { storage }, false);
    cleanups.push(() => b.cleanup());
    const all = await statuses(Array.from({ length: 20 }, (_, i) => smsTo(i % 2 ? a : b, numberOf(i))));
    assert.equal(count(all, 200), 4);
    assert.equal(count(all, 429), 16);
    await a.advance(0);
    await b.advance(0);
    assert.equal(twilio.received.length, 4);
  });
});
