import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { createServer as createHttpsServer } from 'node:https';
import { createServer, getCACertificates, setDefaultCACertificates, type Server } from 'node:tls';
import { testCa } from '../support/certs.ts';
import { startTestPharos, tempDir, type TestPharos } from '../support/pharos.ts';
import { httpReceiver } from '../support/receivers.ts';
import { httpTarget } from '../support/targets.ts';

// Issue #30 point 11: notices about something that ends (a certificate about to expire, the flood
// guard's connectivity loss) reach PagerDuty and Opsgenie keyed by what they are about, and are
// resolved / closed under the same key when it is over. One local HTTP receiver stands in for the
// PagerDuty Events API (`/pd/v2/enqueue`) and the Opsgenie Alert API (`/og/v2/alerts…`).

const dir = tempDir();
const ca = testCa(dir);
setDefaultCACertificates([...getCACertificates('default'), ca.cert]);
const certs = {
  month: ca.leaf('month', 'IP:127.0.0.1', -60, 20), // under the 30-day threshold
  soon: ca.leaf('soon', 'IP:127.0.0.1', -60, 5), // under the 7-day threshold
  renewed: ca.leaf('renewed', 'IP:127.0.0.1', -1, 90), // above every threshold
};

const cleanups: Array<() => Promise<unknown> | unknown> = [];
after(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

type Rx = Awaited<ReturnType<typeof httpReceiver>>;
/** PagerDuty events received, as `action key`. */
const pdEvents = (rx: Rx) => rx.received.filter((r) => r.path === '/pd/v2/enqueue').map((r) => JSON.parse(r.body) as { event_action: string; dedup_key: string; payload?: { summary: string } });
/** Opsgenie requests received: `create <alias>` or `close <alias>` (the alias decoded from the path). */
const ogCalls = (rx: Rx) =>
  rx.received
    .filter((r) => r.path.startsWith('/og/'))
    .map((r) => {
      if (r.path === '/og/v2/alerts') return `create ${(JSON.parse(r.body) as { alias: string }).alias}`;
      const m = /^\/og\/v2\/alerts\/([^/]+)\/(close|acknowledge)\?identifierType=alias$/.exec(r.path);
      return m ? `${m[2]} ${decodeURIComponent(m[1]!)}` : `? ${r.path}`;
    });
const channels = (rx: Rx) => [
  { name: 'pager', type: 'pagerduty', routing_key: 'R0KEY', api_url: `${rx.url}/pd` },
  { name: 'genie', type: 'opsgenie', api_key: 'gk', api_url: `${rx.url}/og` },
  { name: 'hook', type: 'webhook', url: `${rx.url}/hook` },
];

describe('certificate expiry notices', () => {
  let p: TestPharos;
  let rx: Rx;
  let server: Server;
  let port = 0;
  before(async () => {
    rx = await httpReceiver();
    cleanups.push(rx.close);
    server = createServer({ key: certs.month.key, cert: certs.month.cert }, (s) => s.end());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    port = (server.address() as AddressInfo).port;
    cleanups.push(() => new Promise((r) => server.close(r)));
    p = await startTestPharos({
      channels: channels(rx),
      escalation_policies: [{ uuid: 'ep_pager', name: 'Pager', steps: [{ after_minutes: 0, channels: ['pager', 'genie', 'hook'] }] }],
    });
    cleanups.push(() => p.cleanup());
  });
  const checkNow = async (uuid: string) => {
    await p.advance(p.scheduler.nextDueAt(p.store.monitors.get(uuid)!.id)! - p.clock.now());
    await p.core.checks.flush();
    await p.dispatcher.settled();
  };
  const hookNotices = () => rx.delivered('/hook').filter((b) => b.event === 'pharos.notice').map((b) => b.title as string);

  test('a notice triggers under cert:<monitor>:<threshold>; a lower threshold replaces it; the renewal resolves it', async () => {
    const m = (await (await p.api('/v1/monitors', { method: 'POST', json: { name: 'Mail cert', url: '127.0.0.1', protocol: 'tls', port, check_frequency: 60, escalation_policy: 'ep_pager' } })).json()) as { uuid: string };
    const key = (days: number) => `cert:${m.uuid}:${days}`;

    await checkNow(m.uuid);
    const first = pdEvents(rx);
    assert.deepEqual(first.map((e) => `${e.event_action} ${e.dedup_key}`), [`trigger ${key(30)}`], 'PagerDuty: one trigger keyed by monitor and threshold, not by delivery id');
    assert.match(first[0]!.payload!.summary, /^Certificate expires in 20 days: Mail cert/);
    assert.deepEqual(ogCalls(rx), [`create ${key(30)}`]);

    // 5 days left: the 7-day notice replaces the 30-day one (PagerDuty and Opsgenie keep one open).
    server.setSecureContext({ key: certs.soon.key, cert: certs.soon.cert });
    await checkNow(m.uuid);
    assert.deepEqual(pdEvents(rx).slice(1).map((e) => `${e.event_action} ${e.dedup_key}`).sort(), [`resolve ${key(30)}`, `trigger ${key(7)}`]);
    assert.deepEqual(ogCalls(rx).slice(1).sort(), [`close ${key(30)}`, `create ${key(7)}`]);
    // The webhook follows alerts' lifecycle like PagerDuty (issue 32): it hears of the replaced notice; chat kinds do not.
    assert.deepEqual(hookNotices(), ['Certificate expires in 20 days: Mail cert (127.0.0.1)', 'Certificate expires in 5 days: Mail cert (127.0.0.1)', 'Certificate notice replaced: Mail cert (127.0.0.1)']);

    // Renewed: the open notice is resolved under the same key; people on chat read that it is renewed.
    server.setSecureContext({ key: certs.renewed.key, cert: certs.renewed.cert });
    await checkNow(m.uuid);
    assert.deepEqual(pdEvents(rx).slice(3).map((e) => `${e.event_action} ${e.dedup_key}`), [`resolve ${key(7)}`]);
    assert.deepEqual(ogCalls(rx).slice(3), [`close ${key(7)}`]);
    assert.deepEqual(hookNotices().slice(3), ['Certificate renewed: Mail cert (127.0.0.1)']);
    await checkNow(m.uuid);
    assert.equal(pdEvents(rx).length, 4, 'resolved once');
  });

  test('deleting the monitor resolves its open certificate notice', async () => {
    server.setSecureContext({ key: certs.soon.key, cert: certs.soon.cert });
    const m = (await (await p.api('/v1/monitors', { method: 'POST', json: { name: 'Gone', url: '127.0.0.1', protocol: 'tls', port, check_frequency: 60, escalation_policy: 'ep_pager' } })).json()) as { uuid: string };
    const before = pdEvents(rx).length;
    const ogBefore = ogCalls(rx).length;
    await checkNow(m.uuid);
    assert.deepEqual(pdEvents(rx).slice(before).map((e) => `${e.event_action} ${e.dedup_key}`), [`trigger cert:${m.uuid}:7`]);
    assert.ok((await p.api(`/v1/monitors/${m.uuid}`, { method: 'DELETE' })).ok);
    await p.advance(0);
    assert.deepEqual(pdEvents(rx).slice(before + 1).map((e) => `${e.event_action} ${e.dedup_key}`), [`resolve cert:${m.uuid}:7`]);
    assert.deepEqual(ogCalls(rx).slice(ogBefore), [`create cert:${m.uuid}:7`, `close cert:${m.uuid}:7`]);
  });

  test('switching expiry alerts off resolves the open notice at once, at the tracking channels only', async () => {
    server.setSecureContext({ key: certs.soon.key, cert: certs.soon.cert });
    const m = (await (await p.api('/v1/monitors', { method: 'POST', json: { name: 'Quiet', url: '127.0.0.1', protocol: 'tls', port, check_frequency: 60, escalation_policy: 'ep_pager' } })).json()) as { uuid: string };
    const before = pdEvents(rx).length;
    const hooks = hookNotices().length;
    await checkNow(m.uuid);
    assert.deepEqual(pdEvents(rx).slice(before).map((e) => `${e.event_action} ${e.dedup_key}`), [`trigger cert:${m.uuid}:7`]);
    assert.ok((await p.api(`/v1/monitors/${m.uuid}`, { method: 'PUT', json: { tls_expiry_days: null } })).ok);
    await p.advance(0);
    assert.deepEqual(pdEvents(rx).slice(before + 1).map((e) => `${e.event_action} ${e.dedup_key}`), [`resolve cert:${m.uuid}:7`]);
    // The webhook follows alerts' lifecycle (issue 32): it gets the notice and its end; a chat kind would get the notice only.
    assert.deepEqual(hookNotices().slice(hooks), ['Certificate expires in 5 days: Quiet (127.0.0.1)', 'Certificate alerts off: Quiet (127.0.0.1)']);
  });

  test('a password in the monitor URL never reaches a certificate notice (masked as ***)', async () => {
    const site = createHttpsServer({ key: certs.soon.key, cert: certs.soon.cert }, (_req, res) => res.end('ok'));
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', () => r()));
    cleanups.push(() => new Promise((r) => site.close(r)));
    const secret = 'Sup3r-Secret-Pw';
    const res = await p.api('/v1/monitors', { method: 'POST', json: { name: 'Basic auth site', url: `https://alice:${secret}@127.0.0.1:${(site.address() as AddressInfo).port}/`, check_frequency: 60, tls_expiry_days: [7], escalation_policy: 'ep_pager' } });
    assert.equal(res.status, 201, await res.clone().text());
    const m = (await res.json()) as { uuid: string };
    const before = rx.received.length;
    await checkNow(m.uuid);
    const sent = rx.received.slice(before);
    assert.ok(sent.some((r) => r.path === '/pd/v2/enqueue' && JSON.parse(r.body).dedup_key === `cert:${m.uuid}:7`), 'the notice went out');
    for (const r of sent) assert.ok(!r.body.includes(secret), `no secret in ${r.path}`);
    assert.ok(sent.some((r) => r.body.includes('alice:***@127.0.0.1')), 'the URL is shown with its password masked');
    assert.ok((await p.api(`/v1/monitors/${m.uuid}`, { method: 'DELETE' })).ok);
    await p.advance(0);
    await p.dispatcher.settled();
    for (const r of rx.received.slice(before)) assert.ok(!r.body.includes(secret), `no secret in ${r.path} (the resolve at delete)`);
  });
});

describe('flood guard notices', () => {
  test('the connectivity loss triggers under flood:<probe> and its end resolves the same key', async () => {
    const rx = await httpReceiver();
    const target = await httpTarget();
    cleanups.push(rx.close, target.stop);
    const p = await startTestPharos({
      alerting: { flood_guard: { min_monitors: 3, failing_share: 0.5, window_seconds: 120, channels: ['pager', 'genie', 'hook'] } },
      channels: channels(rx),
      escalation_policies: [{ uuid: 'ep_hook', name: 'Hook', steps: [{ after_minutes: 0, channels: ['hook'] }] }],
    });
    cleanups.push(() => p.cleanup());
    for (let i = 0; i < 4; i++) await p.api('/v1/monitors', { method: 'POST', json: { name: `m${i}`, url: `${target.url}m${i}`, check_frequency: 10, escalation_policy: 'ep_hook' } });
    await p.advance(20_000);
    target.respond(503);
    await p.advance(30_000);
    assert.deepEqual(pdEvents(rx).map((e) => `${e.event_action} ${e.dedup_key}`), ['trigger flood:london']);
    assert.deepEqual(ogCalls(rx), ['create flood:london']);
    target.respond(200);
    await p.advance(30_000);
    assert.deepEqual(pdEvents(rx).map((e) => `${e.event_action} ${e.dedup_key}`), ['trigger flood:london', 'resolve flood:london']);
    assert.deepEqual(ogCalls(rx), ['create flood:london', 'close flood:london']);
    const notices = rx.delivered('/hook').filter((b) => b.event === 'pharos.notice').map((b) => b.title as string);
    assert.equal(notices.length, 2);
    assert.match(notices[1]!, /^probe london regained connectivity/);
  });
});
