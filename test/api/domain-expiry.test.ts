import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { httpReceiver } from '../support/receivers.ts';

// Issue 36: domain-expiry warnings over RDAP. A local RDAP fake on 127.0.0.1 serves an RFC 9224
// bootstrap file (config probe.rdap_bootstrap_url points at it) mapping the TLD `example` to itself,
// and RFC 9083 domain objects with an `expiration` event. Nothing leaves the machine.

/** The manual clock with a settable offset: days pass for the sweep without firing the monitors' timers. */
class ShiftedClock extends ManualClock {
  shiftMs = 0;
  override now(): number {
    return super.now() + this.shiftMs;
  }
}
const DAY = 86_400_000;

const clock = new ShiftedClock();
/** Registered names → expiration (epoch ms); anything else is 404, as RDAP servers answer. */
const registered = new Map<string, number>();
const requests: string[] = [];
let rdap: Server;
let base = '';
let p: TestPharos;
let rx: Awaited<ReturnType<typeof httpReceiver>>;

before(async () => {
  rdap = createServer((req, res) => {
    requests.push(req.url ?? '');
    if (req.url === '/dns.json') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ version: '1.0', publication: '2026-01-01T00:00:00Z', services: [[['example', 'other'], [`${base}/rdap/`]]] }));
      return;
    }
    const m = /^\/rdap\/domain\/([a-z0-9.-]+)$/.exec(req.url ?? '');
    const at = m ? registered.get(m[1]!) : undefined;
    if (at === undefined) {
      res.writeHead(404, { 'content-type': 'application/rdap+json' }).end(JSON.stringify({ errorCode: 404, title: 'Not Found' }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/rdap+json' }).end(
      JSON.stringify({ objectClassName: 'domain', ldhName: m![1], events: [{ eventAction: 'registration', eventDate: '2020-01-01T00:00:00Z' }, { eventAction: 'expiration', eventDate: new Date(at).toISOString() }] }),
    );
  });
  await new Promise<void>((r) => rdap.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(rdap.address() as AddressInfo).port}`;
  rx = await httpReceiver();
  p = await startTestPharos(
    {
      probe: { rdap_bootstrap_url: `${base}/dns.json` },
      channels: [{ name: 'hook', type: 'webhook', url: `${rx.url}/hook` }],
      escalation_policies: [{ uuid: 'ep_ops', name: 'Ops', steps: [{ after_minutes: 0, channels: ['hook'] }] }],
    },
    clock,
  );
});
after(async () => {
  await p?.cleanup();
  await rx?.close();
  await new Promise((r) => rdap?.close(r));
});

const notices = () => rx.delivered('/hook').filter((b) => b.event === 'pharos.notice').map((b) => b.title as string);
const sweep = async () => {
  const queued = await p.domainExpiry.runNow();
  await p.dispatcher.settled();
  return queued;
};
const create = async (json: Record<string, unknown>) => {
  const res = await p.api('/v1/monitors', { method: 'POST', json: { check_frequency: 60, escalation_policy: 'ep_ops', ...json } });
  assert.equal(res.status, 201, await res.clone().text());
  return (await res.json()) as Record<string, unknown> & { uuid: string };
};

test('warns once per threshold crossed, asks RDAP once a day per host, and says so when the domain is renewed', async () => {
  registered.set('shop.example', clock.now() + 20 * DAY + 3_600_000);
  const m = await create({ name: 'Shop', url: 'https://www.shop.example/health', domain_expiry_days: [30, 7] });
  assert.deepEqual(m.domain_expiry_days, [30, 7]);
  assert.equal(await sweep(), 1);
  assert.deepEqual(notices(), ['Domain expires in 20 days: shop.example (Shop)']);
  assert.deepEqual(requests, ['/dns.json', '/rdap/domain/shop.example'], 'the bootstrap file, then the registrable domain at the server it names');
  assert.equal(p.store.monitors.domainExpiry(p.store.monitors.get(m.uuid)!.id).expiresAt, registered.get('shop.example'));
  assert.equal((await (await p.api(`/v1/monitors/${m.uuid}`)).json()).domain_expires_at, new Date(registered.get('shop.example')!).toISOString(), 'the API shows the date read');
  // within the day: the reading is cached, nothing is asked or sent again
  assert.equal(await sweep(), 0);
  assert.equal(requests.length, 2);
  // two weeks later, under 7 days: the next threshold
  clock.shiftMs += 14 * DAY;
  assert.equal(await sweep(), 1);
  assert.deepEqual(notices().at(-1), 'Domain expires in 6 days: shop.example (Shop)');
  // renewed for a year: the notice is resolved
  registered.set('shop.example', clock.now() + 365 * DAY);
  clock.shiftMs += DAY;
  assert.equal(await sweep(), 1);
  assert.deepEqual(notices().at(-1), 'Domain renewed: shop.example (Shop)');
  assert.equal(await sweep(), 0, 'nothing more while above every threshold');
});

test('the registrable domain under a multi-label suffix is found by asking from two labels up; other protocols have it too', async () => {
  registered.set('shop.co.other', clock.now() + 3 * DAY);
  requests.length = 0;
  await create({ name: 'Mail', protocol: 'port', url: 'mail.shop.co.other', port: 25, domain_expiry_days: [7] });
  assert.equal(await sweep(), 1);
  assert.deepEqual(notices().at(-1), 'Domain expires in 3 days: shop.co.other (Mail)');
  assert.deepEqual(requests, ['/rdap/domain/co.other', '/rdap/domain/shop.co.other'], 'co.other is not registered (404), shop.co.other is');
});

test('no RDAP request for IP addresses, unknown TLDs or monitors without thresholds; bad thresholds are 400s naming the field', async () => {
  requests.length = 0;
  await create({ name: 'Router', protocol: 'port', url: '192.0.2.1', port: 22, domain_expiry_days: [7] });
  await create({ name: 'NAS', url: 'http://nas.lan/', domain_expiry_days: [7] });
  const plain = await create({ name: 'Plain', url: 'https://plain.example/' });
  assert.ok(!('domain_expiry_days' in plain) && !('domain_expires_at' in plain), 'shown only when set (and read)');
  assert.equal(await sweep(), 0);
  assert.deepEqual(requests, [], 'the IP and .lan are never asked; Plain has no thresholds; Shop and Mail are cached');
  const bad = await p.api('/v1/monitors', { method: 'POST', json: { name: 'x', url: 'https://x.example/', domain_expiry_days: [0] } });
  assert.equal(bad.status, 400);
  assert.match((await bad.json()).message, /^domain_expiry_days/);
});
