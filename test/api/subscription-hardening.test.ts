import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { httpReceiver } from '../support/receivers.ts';
import { statusFixture, type StatusFixture } from '../support/status-fixture.ts';

// Status-page subscriptions as an anonymous visitor abuses them (issue #14 points 1 and 2): webhook
// URLs aimed at loopback, private and metadata addresses (SSRF), names that resolve to loopback
// at send time (DNS rebinding), and floods of subscribe requests. Real Pharos, real receivers on
// loopback; nothing is ever sent beyond 127.0.0.0/8.
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});
const WEBHOOKS = { subscribe: { enabled: true, email: false, slack: true, teams: true } };
async function setup(page: Record<string, unknown>, subscriptions: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): Promise<StatusFixture> {
  const f = await statusFixture(page, { status_pages: { subscriptions, ...extra } });
  cleanups.push(() => f.close());
  return f;
}
const subscribe = (f: StatusFixture, channel: string, target: string, headers: Record<string, string> = {}) =>
  fetch(`${f.p.url}/status/acme/subscribe`, { method: 'POST', body: new URLSearchParams({ channel, target }), headers, redirect: 'manual' });

/** A TCP listener on 127.0.0.1 that counts connections (and answers none). */
async function connectionCounter(): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  let n = 0;
  const server: Server = createServer((socket) => {
    n++;
    socket.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, connections: () => n, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe('subscriber webhooks never reach loopback, private or metadata addresses (SSRF)', () => {
  test('the form refuses http, other hosts and every numeric form of a non-public address; nothing is sent', async () => {
    const hooks = await httpReceiver();
    cleanups.push(hooks.close);
    const f = await setup(WEBHOOKS, { per_address_per_hour: 100 });
    const port = new URL(hooks.url).port;
    const refused: Array<[string, RegExp]> = [
      [`${hooks.url}/slack`, /target: must be an https webhook URL/],
      [`https://127.0.0.1:${port}/slack`, /target: must not point at a loopback, private/],
      ['https://169.254.169.254/latest/meta-data/', /must not point at/],
      ['https://10.0.0.1/hook', /must not point at/],
      ['https://[::ffff:127.0.0.1]/hook', /must not point at/],
      ['https://0x7f000001/hook', /must not point at/],
      ['https://2130706433/hook', /must not point at/],
      ['https://017700000001/hook', /must not point at/],
      ['https://127.1/hook', /must not point at/],
      ['https://[::1]/hook', /must not point at/],
      ['https://[fd00:ec2::254]/latest', /must not point at/],
      ['https://100.100.100.200/latest', /must not point at/],
      ['https://example.com/services/x', /must be a Slack incoming-webhook URL \(hooks\.slack\.com/],
      ['https://user:pw@hooks.slack.com/services/x', /must not carry a user name or password/],
    ];
    for (const [target, why] of refused) {
      const res = await subscribe(f, 'slack', target);
      assert.equal(res.status, 400, target);
      assert.match(await res.text(), why, target);
    }
    const teams = await subscribe(f, 'teams', 'https://hooks.slack.com/services/x');
    assert.equal(teams.status, 400, 'a Slack host is not a Teams host');
    assert.match(await teams.text(), /must be a Teams incoming-webhook URL \(\*\.webhook\.office\.com/);
    await f.p.advance(60_000);
    assert.equal(hooks.received.length, 0);
    assert.equal(f.p.store.alerts.all().length, 0, 'nothing queued');
  });

  test('a name the operator allows that resolves to loopback when sending (DNS rebinding) is refused at connect time, permanently', async () => {
    const target = await connectionCounter();
    cleanups.push(target.close);
    const f = await setup(WEBHOOKS, { allowed_webhook_hosts: ['localhost'] });
    const res = await subscribe(f, 'slack', `https://localhost:${target.port}/services/x`);
    assert.equal(res.status, 200, 'an allowed https name passes the form');
    await f.p.advance(0);
    assert.equal(target.connections(), 0, 'no connection to the loopback address it resolved to');
    const [row] = f.p.store.alerts.all();
    assert.ok(row?.failedAt, 'failed permanently, not retried');
    assert.match(row!.lastError ?? '', /refused: not a public address \(localhost:\d+\)/);
  });

  test('a subscriber stored before these rules (http, loopback) gets nothing: the URL is checked again before each send', async () => {
    const hooks = await httpReceiver();
    cleanups.push(hooks.close);
    const f = await setup(WEBHOOKS);
    const page = f.p.store.statuspages.get(f.page.uuid)!;
    f.p.store.tx(() => f.p.store.subscribers.insert('sub_legacy0000000000000000', page.id, 'slack', `${hooks.url}/legacy`, 1, 1));
    await f.p.api('/v3/incidents', { method: 'POST', json: { title: { en: 'Checkout errors' }, type: 'incident', statuspages: [f.page.uuid] } });
    await f.p.advance(60_000);
    assert.equal(hooks.received.length, 0);
    const [row] = f.p.store.alerts.all();
    assert.ok(row?.failedAt);
    assert.match(row!.lastError ?? '', /webhook URL refused: must be an https webhook URL/);
  });
});

describe('subscription abuse limits', () => {
  test('one confirmation mail per address, page and day, however often it is entered', async () => {
    const f = await setup({}, { per_address_per_hour: 100 });
    for (let i = 0; i < 20; i++) {
      const res = await subscribe(f, 'email', i % 2 ? 'victim@example.com' : 'Victim@Example.com');
      assert.equal(res.status, 200);
      assert.match(await res.text(), /Check your inbox/, 'the same answer every time (nothing tells whether a mail went out)');
    }
    await f.p.advance(0);
    assert.equal(f.smtp.mails.length, 1);
    await f.p.advance(86_400_000);
    assert.equal((await subscribe(f, 'email', 'victim@example.com')).status, 200);
    await f.p.advance(0);
    assert.equal(f.smtp.mails.length, 2, 'a day later, one more');
  });

  test('per client address: the 11th request within an hour gets 429, other addresses still subscribe', async () => {
    const f = await setup({}, {}, { trust_proxy: true });
    const from = (ip: string) => ({ 'x-forwarded-for': ip });
    for (let i = 0; i < 10; i++) assert.equal((await subscribe(f, 'email', `reader${i}@example.com`, from('203.0.113.7'))).status, 200);
    const over = await subscribe(f, 'email', 'reader10@example.com', from('203.0.113.7'));
    assert.equal(over.status, 429);
    assert.match(await over.text(), /too many subscribe requests; try again in \d+ s/);
    assert.equal((await subscribe(f, 'email', 'someone@example.com', from('203.0.113.8'))).status, 200);
    await f.p.advance(0);
    assert.equal(f.smtp.mails.length, 11);
  });

  test('per page: after per_page_per_hour requests from many addresses, 429', async () => {
    const f = await setup({}, { per_page_per_hour: 5 }, { trust_proxy: true });
    for (let i = 0; i < 5; i++) assert.equal((await subscribe(f, 'email', `r${i}@example.com`, { 'x-forwarded-for': `198.51.100.${i}` })).status, 200);
    assert.equal((await subscribe(f, 'email', 'r5@example.com', { 'x-forwarded-for': '198.51.100.99' })).status, 429);
  });

  test('a page keeps at most max_per_page subscribers; confirmations pending for more than a day stop counting', async () => {
    const f = await setup({}, { max_per_page: 3 });
    for (let i = 0; i < 3; i++) assert.equal((await subscribe(f, 'email', `r${i}@example.com`)).status, 200);
    const full = await subscribe(f, 'email', 'r3@example.com');
    assert.equal(full.status, 409);
    assert.match(await full.text(), /this page takes no more subscribers/);
    await f.p.advance(86_400_000 + 1);
    assert.equal((await subscribe(f, 'email', 'r3@example.com')).status, 200, 'unconfirmed ones expire from the count');
  });
});
