import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { setupAdmin, signIn, type ConsoleClient } from '../support/console.ts';

// Contact kind `console` (issue 34 point 1): a person's open console streams (/events) get a `page`
// message when they are paged; nobody else's stream does; with none open the page is not reached
// (point 5). Both stores (PHAROS_TEST_DRIVER).
let p: TestPharos;
let admin: ConsoleClient;
let vera: ConsoleClient;
const uuids: Record<string, string> = {};
const system = { type: 'system', id: 'test', name: 'test' } as const;

/** An open /events stream: its messages as they arrive, and a wait for the next one of an event name. */
async function openStream(cl: ConsoleClient) {
  const ctl = new AbortController();
  const res = await fetch(`${p.url}/events`, { headers: { cookie: cl.cookie! }, signal: ctl.signal });
  assert.equal(res.headers.get('content-type'), 'text/event-stream');
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const got: Array<{ event: string; data: string }> = [];
  let buf = '';
  async function next(event: string): Promise<{ event: string; data: string }> {
    for (;;) {
      const i = got.findIndex((m) => m.event === event);
      if (i >= 0) return got.splice(0, i + 1).at(-1)!;
      const { value, done } = await reader.read();
      if (done) throw new Error(`stream ended before a ${event} message`);
      buf += value;
      let end: number;
      while ((end = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, end);
        buf = buf.slice(end + 2);
        const ev = /^event: ?(.*)$/m.exec(block)?.[1] ?? 'message';
        const data = [...block.matchAll(/^data: ?(.*)$/gm)].map((m) => m[1]).join('\n');
        got.push({ event: ev, data });
      }
    }
  }
  await next('hello');
  return { next, close: () => ctl.abort() };
}

const page = (outageUuid: string, title: string) => ({ outageUuid, title, text: 'HTTP 503 from https://api.example.com', ackUrl: `https://pharos.example.com/ack/${outageUuid}` });

before(async () => {
  p = await startTestPharos();
  admin = await setupAdmin(p);
  for (const [email, name] of [['vera@example.com', 'Vera'], ['nora@example.com', 'Nora']] as const) {
    uuids[name] = (await p.core.accounts.create({ email, name, role: 'viewer', password: 'viewer password 1' }, system)).uuid;
  }
  uuids.Ada = (await p.core.people.members()).find((m) => m.email === 'admin@example.com')!.uuid;
  vera = await signIn(p, 'vera@example.com', 'viewer password 1');
});
after(async () => {
  await p?.cleanup();
});

describe('console notifications', () => {
  test('a console method is verified when added, without a code; the Profile page offers to allow notifications', async () => {
    const added = await vera.post('/profile/methods', { kind: 'console', address: 'work laptop' });
    assert.equal(added.status, 200);
    assert.match(added.html, /pages now show in every console tab/);
    assert.match(added.html, /data-allow-notifications/);
    const [m] = await p.core.people.methods(uuids.Vera!);
    assert.equal(m!.kind, 'console');
    assert.equal(m!.hint, 'work laptop');
    assert.ok(m!.verifiedAt !== null, 'verified at once');
    const second = await vera.post('/profile/methods', { kind: 'console', address: 'phone' });
    assert.equal(second.status, 409, 'one console method per person: it reaches every open tab already');
    assert.equal((await p.core.people.methods(uuids.Vera!)).length, 1);
    await admin.post('/profile/methods', { kind: 'console', address: 'desk' });
    await p.core.people.addMethod(uuids.Nora!, { kind: 'console', address: 'phone' }, system);
  });

  test("a page reaches the person's open streams only; with none open it is not reached", async () => {
    const veraTab = await openStream(vera);
    const adminTab = await openStream(admin);
    try {
      const r = await p.core.people.page(uuids.Vera!, page('out_vera1', 'DOWN: API'));
      assert.equal(r.reached, true);
      assert.deepEqual(r.tried.map((t) => [t.kind, t.ok]), [['console', true]]);
      const msg = JSON.parse((await veraTab.next('page')).data);
      assert.deepEqual(msg, { title: 'DOWN: API', text: 'HTTP 503 from https://api.example.com\nAcknowledge: https://pharos.example.com/ack/out_vera1', link: 'https://pharos.example.com/ack/out_vera1', tag: 'out_vera1' });

      // Ada's stream got nothing of Vera's page: the first page it receives is her own, sent after.
      assert.equal((await p.core.people.page(uuids.Ada!, page('out_ada1', 'DOWN: DB'))).reached, true);
      assert.equal(JSON.parse((await adminTab.next('page')).data).tag, 'out_ada1');

      // Nora has no console open: not reached, and the reason is told.
      const none = await p.core.people.page(uuids.Nora!, page('out_nora1', 'DOWN: API'));
      assert.equal(none.reached, false);
      assert.match(none.tried[0]!.error!, /no console of this person is open/);
    } finally {
      veraTab.close();
      adminTab.close();
    }
  });

  test('a stream whose session ended is told so, and the page to it is not reached', async () => {
    const nora = await signIn(p, 'nora@example.com', 'viewer password 1');
    const tab = await openStream(nora);
    try {
      assert.equal((await nora.post('/logout', {})).status, 303);
      const r = await p.core.people.page(uuids.Nora!, page('out_nora2', 'DOWN: API'));
      assert.equal(r.reached, false);
      await tab.next('signed-out');
    } finally {
      tab.close();
    }
  });

  test('the console script shows the banner and the notification for a page message', async () => {
    const js = await (await fetch(`${p.url}/_console/console.js`)).text();
    assert.match(js, /es\.addEventListener\('page', function \(e\) \{ consolePage\(e\.data\); \}\)/);
    assert.match(js, /new Notification\(p\.title, \{ body: p\.text, tag: p\.tag/);
    assert.match(js, /Notification\.requestPermission\(\)/);
  });
});
