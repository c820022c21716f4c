import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ONCE_IN_SQLITE_RUN, startTestPharos, tempDir, WRITE_TOKEN, type TestPharos } from '../support/pharos.ts';
import { forkPharos, type ChildPharos } from '../support/pharos-child.ts';
import { waitFor } from '../support/process.ts';

// Issue 34 point 3: the people of an escalation step are paged at least once, even when the leader
// stops between the send's commit and the pages. The send stores a page request in its transaction;
// the pager claims it, pages, marks it done; a leader that starts pages the requests left open.
// One local HTTP receiver stands in for ntfy; the person is the installation token's user.

/** An ntfy stand-in that can hold the pages (title "Outage #…") open, unanswered. */
async function ntfyReceiver() {
  const pages: Array<{ title: string; message: string }> = [];
  const codes: string[] = [];
  const held: ServerResponse[] = [];
  const state = { hold: false };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const m = JSON.parse(body || '{}') as { title?: string; message?: string };
      if (m.title?.startsWith('Outage #')) {
        pages.push({ title: m.title, message: m.message ?? '' });
        if (state.hold) return void held.push(res);
      } else if (m.message) codes.push(/(\d{6})/.exec(m.message)?.[1] ?? '');
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    pages,
    codes,
    state,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const api = async (url: string, path: string, method: string, body?: unknown): Promise<any> => {
  const res = await fetch(url + path, { method, headers: { authorization: `Bearer ${WRITE_TOKEN}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${await res.clone().text()}`);
  return res.json();
};

/** The token's user with a verified ntfy method, and a policy whose one step pages them; returns the policy's uuid. */
async function personAndPolicy(url: string, rx: Awaited<ReturnType<typeof ntfyReceiver>>): Promise<string> {
  const me = (await api(url, '/v1/me', 'GET')).uuid as string;
  const m = await api(url, '/v1/me/contact-methods', 'POST', { kind: 'ntfy', address: 'ada-pager' });
  await api(url, `/v1/me/contact-methods/${m.uuid}/verify`, 'POST', { code: rx.codes.at(-1) });
  return (await api(url, '/v1/escalation-policies', 'POST', { name: 'Ada', steps: [{ delay_minutes: 0, targets: [{ type: 'user', uuid: me }] }] })).uuid;
}

const openOutage = async (url: string, policy: string, description: string) =>
  (await api(url, '/v2/outages', 'POST', { description, escalationPolicyUuid: policy })).outage as { uuid: string; incidentNumber: number };

describe('page requests (in process, on the store under test)', () => {
  let p: TestPharos;
  let rx: Awaited<ReturnType<typeof ntfyReceiver>>;
  let policy: string;
  before(async () => {
    rx = await ntfyReceiver();
    p = await startTestPharos({ channels: [{ name: 'ntfy', type: 'ntfy', server: `${rx.url}/ntfy`, topic: 'team' }] });
    policy = await personAndPolicy(p.url, rx);
  });
  after(async () => {
    await p?.cleanup();
    await rx?.close();
  });
  const restartStepper = async () => {
    await p.stepper.stop();
    p.stepper.start();
    await p.stepper.settled();
    await p.core.people.settled();
  };

  test('a send that pages people stores a request in its transaction; paged once, then done', async () => {
    const before = rx.pages.length;
    const o = await openOutage(p.url, policy, 'db down');
    await p.advance(0);
    await waitFor('the page', async () => rx.pages.length === before + 1);
    const r = await p.store.async.people.pageRequest(o.uuid, 1);
    assert.ok(r && r.claimedAt !== null && r.doneAt !== null, JSON.stringify(r));
    await restartStepper();
    assert.equal(rx.pages.length, before + 1, 'a done request is not paged again');
  });

  test('a claim is one instance\'s: a second claim fails until the first is 5 minutes old', async () => {
    const s = p.store.async.people;
    const now = p.clock.now();
    await s.insertPageRequest('out_claims', 1, now);
    await s.insertPageRequest('out_claims', 1, now); // the same send again: no second row
    assert.equal(await s.claimPageRequest('out_claims', 1, now, now - 300_000), true);
    assert.equal(await s.claimPageRequest('out_claims', 1, now + 1, now + 1 - 300_000), false);
    assert.deepEqual(await s.claimOpenPageRequests(now + 299_000, now - 1_000), []);
    assert.deepEqual(await s.claimOpenPageRequests(now + 301_000, now + 1_000), [{ outageUuid: 'out_claims', sendNumber: 1 }]);
    await s.pageRequestDone('out_claims', 1, now + 302_000);
    assert.equal(await s.claimPageRequest('out_claims', 1, now + 999_000, now + 998_000), false, 'done: never claimed again');
  });

  test('a new leadership pages an open request; one whose outage is acknowledged or gone is marked done unpaged', async () => {
    const live = await openOutage(p.url, policy, 'cache down');
    const acked = await openOutage(p.url, policy, 'queue down');
    await p.advance(0);
    await p.stepper.settled();
    const before = rx.pages.length;
    await api(p.url, `/v2/outages/${acked.uuid}/acknowledge`, 'POST', {});
    // As if the leader had stopped right after the sends' commit: their requests open again, unclaimed.
    const now = p.clock.now();
    await p.store.async.people.insertPageRequest(live.uuid, 2, now);
    await p.store.async.people.insertPageRequest(acked.uuid, 2, now);
    await p.store.async.people.insertPageRequest('out_gone', 1, now);
    await restartStepper();
    assert.equal(rx.pages.length, before + 1, JSON.stringify(rx.pages.slice(before)));
    assert.match(rx.pages.at(-1)!.title, new RegExp(`^Outage #${live.incidentNumber}:`));
    for (const [uuid, send] of [[live.uuid, 2], [acked.uuid, 2], ['out_gone', 1]] as const) {
      assert.notEqual((await p.store.async.people.pageRequest(uuid, send))?.doneAt ?? null, null, `${uuid} done`);
    }
    const timeline = (await p.core.outages.timeline(live.uuid)).map((e) => e.message ?? '');
    assert.equal(timeline.filter((t) => /^step 1: paged /.test(t)).length, 2, timeline.join('\n'));
  });

  test('a request claimed by a leader that stopped is paged 5 minutes after its claim', async () => {
    const o = await openOutage(p.url, policy, 'search down');
    await p.advance(0);
    await p.stepper.settled();
    const before = rx.pages.length;
    const now = p.clock.now();
    await p.store.async.people.insertPageRequest(o.uuid, 3, now);
    assert.equal(await p.store.async.people.claimPageRequest(o.uuid, 3, now, now - 300_000), true);
    await restartStepper();
    assert.equal(rx.pages.length, before, 'a fresh claim is left to its instance');
    await p.advance(301_000);
    await p.core.people.settled();
    assert.equal(rx.pages.length, before + 1);
    assert.notEqual((await p.store.async.people.pageRequest(o.uuid, 3))?.doneAt ?? null, null);
  });
});

describe('page requests across a SIGKILL', { skip: ONCE_IN_SQLITE_RUN }, () => {
  test('a leader killed while paging: the restarted process pages the person, and a done request is not paged again', async () => {
    const rx = await ntfyReceiver();
    const dataDir = tempDir();
    const config = { data_dir: dataDir, channels: [{ name: 'ntfy', type: 'ntfy', server: `${rx.url}/ntfy`, topic: 'team' }] };
    const T0 = Date.UTC(2026, 0, 1, 12);
    let c: ChildPharos | undefined;
    try {
      c = await forkPharos(config, T0);
      const policy = await personAndPolicy(c.url, rx);
      rx.state.hold = true;
      const o = await openOutage(c.url, policy, 'payments down');
      await waitFor('the page held open by the receiver', async () => rx.pages.length === 1);
      c.child.kill('SIGKILL');
      await c.exited;
      rx.state.hold = false;

      // Past the claim's 5 minutes (the killed process claimed it): the new leader pages it at start.
      c = await forkPharos(config, T0 + 6 * 60_000);
      await waitFor('the page sent again by the restarted process', async () => rx.pages.length === 2);
      const a = await c.call({ timeline: o.uuid, request: [o.uuid, 1] });
      const r = a.request as { doneAt: number | null };
      assert.ok(r.doneAt !== null, JSON.stringify(r));
      assert.ok((a.timeline as string[]).some((t) => /^alerted step 1: paged .*ntfy .* sent/.test(t)), (a.timeline as string[]).join('\n'));
      c.child.kill('SIGKILL');
      await c.exited;

      c = await forkPharos(config, T0 + 20 * 60_000);
      await c.call({ advance: 10 * 60_000 });
      assert.equal(rx.pages.length, 2, 'a done request is not paged again');
    } finally {
      if (c && c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGKILL');
      await rx.close();
    }
  });
});
