import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser, openWatched, signedInContext, type ContextOptions, openLive, VIEWPORTS } from '../support/browser.ts';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { setupAdmin } from '../support/console.ts';
import { httpTarget, type HttpTarget } from '../support/targets.ts';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

// Issue 33 point 3 in Chromium: every console page that shows state follows the live stream. A
// local target answers 500, then 200 again; the monitor's page (status, last check, current outage,
// its outages) and the outages inbox (the line appears under Ongoing, its duration ticks, it moves to
// Resolved, "No ongoing outage." shows only when nothing is ongoing) follow both transitions without
// a reload, on a desktop and a 390 px phone. Without JavaScript the same pages are right on reload.
const EMAIL = 'ada@example.com';
const PW = 'correct horse battery';
const RECHECK_MS = 3000;
let browser: Browser;
let p: TestPharos;
const problems: string[] = [];
before(async () => {
  browser = await launchBrowser();
  p = await startTestPharos();
  await setupAdmin(p, EMAIL, PW);
});
after(async () => {
  await browser.close();
  await p.cleanup();
  assert.deepEqual(problems, [], 'no script errors in the browser');
});

const signedIn = (options: ContextOptions, base = p.url): Promise<BrowserContext> => signedInContext(browser, base, EMAIL, PW, problems, options);
const open = (ctx: BrowserContext, path: string, base = p.url): Promise<Page> => openWatched(ctx, base + path, problems);
/** A page listening to the live stream, marked so a reload would show. */
const live = (ctx: BrowserContext, path: string, base = p.url): Promise<Page> => openLive(ctx, base + path, problems);
const nextCheck = async (uuid: string) => {
  const due = p.scheduler.nextDueAt(p.store.monitors.get(uuid)!.id)!;
  await p.advance(due - p.clock.now());
  await p.core.checks.flush();
};

for (const vp of VIEWPORTS) {
  describe(`the monitor page and the outages inbox follow a target going down and back (${vp.name})`, () => {
    let target: HttpTarget;
    before(async () => {
      target = await httpTarget(200);
    });
    after(() => target.stop());

    test('JavaScript on: both transitions arrive without reload; JavaScript off: right on reload', async () => {
      const res = await p.api('/v1/monitors', { method: 'POST', json: { name: `Shop ${vp.name}`, url: target.url, check_frequency: 10 } });
      assert.equal(res.status, 201);
      const uuid = (await res.json()).uuid as string;
      await nextCheck(uuid);

      const ctx = await signedIn(vp.options);
      const monitor = await live(ctx, `/monitors/${uuid}`);
      const inbox = await live(ctx, '/outages');
      const noJs = await signedIn({ ...vp.options, javaScriptEnabled: false });
      const plain = await open(noJs, `/monitors/${uuid}`);
      const plainInbox = await open(noJs, '/outages');
      const line = `tr[data-subject="${uuid}"]`;

      assert.equal(await monitor.locator('#monitor-status').innerText(), 'up');
      assert.equal(await monitor.locator('#monitor-now [data-current-outage]').innerText(), 'none');
      assert.equal(await monitor.locator('p[data-empty-for=monitor-outages]').isVisible(), true);
      assert.equal(await inbox.locator(line).count(), 0);
      assert.equal(await inbox.locator('p[data-empty-for=ongoing]').isVisible(), true);
      const lastCheck = await monitor.locator('#monitor-now dd[data-tick=ago]').innerText();
      assert.match(lastCheck, /s ago$/);

      // Down: the failed check and its two confirmations open an outage.
      target.respond(500);
      await nextCheck(uuid);
      await p.advance(RECHECK_MS);
      await p.advance(RECHECK_MS);
      await monitor.locator('#monitor-status[data-status=down]').waitFor({ timeout: 10_000 });
      await monitor.locator('#monitor-now [data-current-outage^=outage_] a').waitFor();
      assert.match(await monitor.locator('#monitor-now [data-current-outage]').innerText(), /^INC-\d+ for \d+s$/);
      await monitor.locator(`#monitor-outages ${line}[data-state=ongoing]`).waitFor();
      assert.equal(await monitor.locator('p[data-empty-for=monitor-outages]').isVisible(), false);
      await inbox.locator(`#ongoing ${line}[data-state=ongoing]`).waitFor({ timeout: 10_000 });
      assert.equal(await inbox.locator('p[data-empty-for=ongoing]').isVisible(), false, 'no "No ongoing outage." beside an ongoing line');
      // The outage's own page, opened while it is ongoing, follows it too.
      const outageUuid = await monitor.locator('#monitor-now [data-current-outage]').getAttribute('data-current-outage');
      const outage = await live(ctx, `/outages/${outageUuid}`);
      assert.equal(await outage.locator('#outage-state').innerText(), 'ongoing');
      assert.equal(await outage.locator('#outage-actions').count(), 1);
      // The duration keeps counting in the browser (from the time the server rendered it).
      const cell = inbox.locator(`#ongoing ${line} td[data-tick=duration]`);
      const first = await cell.innerText();
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      await inbox.waitForFunction(([sel, was]) => (globalThis as any).document.querySelector(sel).textContent !== was, [`#ongoing ${line} td[data-tick=duration]`, first] as const);
      assert.match(await cell.innerText(), /^\d+s$/);
      // Without JavaScript: right on reload.
      assert.equal(await plain.locator('meta[http-equiv=refresh]').count(), 1, 'without JavaScript the monitor page refreshes itself');
      await plain.reload();
      assert.equal(await plain.locator('#monitor-status').innerText(), 'down');
      assert.match(await plain.locator('#monitor-now [data-current-outage]').innerText(), /^INC-\d+ for /);
      await plainInbox.reload();
      assert.equal(await plainInbox.locator(`#ongoing ${line}[data-state=ongoing]`).count(), 1);
      assert.equal(await plainInbox.locator('p[data-empty-for=ongoing]').isVisible(), false);

      // Back up: the outage resolves.
      target.respond(200);
      await nextCheck(uuid);
      await monitor.locator('#monitor-status[data-status=up]').waitFor({ timeout: 10_000 });
      await monitor.locator('#monitor-now [data-current-outage=""]').waitFor();
      assert.equal(await monitor.locator('#monitor-now [data-current-outage]').innerText(), 'none');
      await monitor.locator(`#monitor-outages ${line}[data-state=resolved]`).waitFor();
      assert.equal(await monitor.locator(`#monitor-outages ${line}`).count(), 1);
      await inbox.locator(`#resolved ${line}[data-state=resolved]`).waitFor({ timeout: 10_000 });
      assert.equal(await inbox.locator(`#ongoing ${line}`).count(), 0, 'the resolved outage left Ongoing');
      assert.equal(await inbox.locator('p[data-empty-for=ongoing]').isVisible(), true, '"No ongoing outage." once nothing is ongoing');
      assert.equal(await inbox.locator('p[data-empty-for=resolved]').isVisible(), false);
      assert.equal(await inbox.locator(`#resolved ${line} td[data-tick=duration]`).count(), 0, 'a resolved duration stands still');
      await outage.locator('#outage-state[data-status=resolved]').waitFor({ timeout: 10_000 });
      assert.equal(await outage.locator('#outage-actions').count(), 0, 'a resolved outage offers no actions');
      assert.match(await outage.locator('#outage-facts').innerText(), /Resolved\s+\d{4}-\d\d-\d\d /);
      for (const tab of [monitor, inbox, outage]) assert.equal(await tab.evaluate('window.marker'), 42, 'no reload: the changes came over the stream');
      if (vp.name.includes('phone')) {
        for (const tab of [monitor, inbox, outage]) {
          const width = (await tab.evaluate('document.documentElement.scrollWidth')) as number;
          assert.ok(width <= 390, `no sideways scrolling on a phone (${width} px)`);
        }
      }
      await plain.reload();
      assert.equal(await plain.locator('#monitor-status').innerText(), 'up');
      assert.equal(await plain.locator('#monitor-now [data-current-outage]').innerText(), 'none');
      await plainInbox.reload();
      assert.equal(await plainInbox.locator(`#resolved ${line}[data-state=resolved]`).count(), 1);
      assert.equal(await plainInbox.locator(`#ongoing ${line}`).count(), 0);
      assert.equal(await plainInbox.locator('p[data-empty-for=ongoing]').isVisible(), true);
      await ctx.close();
      await noJs.close();
      // The target stops after this test: the monitor goes, so it opens no outage in the next one.
      assert.equal((await p.api(`/v1/monitors/${uuid}`, { method: 'DELETE' })).ok, true);
    });
  });
}

describe('the healthcheck page follows its healthcheck going down and back', () => {
  test('JavaScript on: missed deadline then a ping, without reload', async () => {
    const res = await p.api('/v1/healthchecks', { method: 'POST', json: { name: 'Nightly', period_value: 1, period_type: 'minutes', grace_period_value: 1, grace_period_type: 'minutes' } });
    assert.equal(res.status, 201);
    const { healthcheck } = await res.json();
    const ping = async () => assert.equal((await fetch(`${p.url}/ping/${new URL(healthcheck.pingUrl).pathname.split('/').pop()}`)).status, 200);
    await ping();
    const ctx = await signedIn(VIEWPORTS[1].options);
    const tab = await live(ctx, `/healthchecks/${healthcheck.uuid}`);
    assert.equal(await tab.locator('#healthcheck-status').innerText(), 'up');
    assert.equal(await tab.locator('p[data-empty-for=healthcheck-outages]').isVisible(), true);

    await p.advance(125_000);
    await tab.locator('#healthcheck-status[data-status=down]').waitFor({ timeout: 10_000 });
    await tab.locator(`#healthcheck-outages tr[data-subject="${healthcheck.uuid}"][data-state=ongoing]`).waitFor();
    assert.equal(await tab.locator('p[data-empty-for=healthcheck-outages]').isVisible(), false);

    await ping();
    await tab.locator('#healthcheck-status[data-status=up]').waitFor({ timeout: 10_000 });
    await tab.locator(`#healthcheck-outages tr[data-subject="${healthcheck.uuid}"][data-state=resolved]`).waitFor();
    assert.match(await tab.locator('#healthcheck-now dd[data-tick=ago]').innerText(), /^\d+ s ago$/);
    // A deleted outage leaves the page too, and "No outage." is back.
    const outageId = (await tab.locator('#healthcheck-outages tbody tr').getAttribute('id'))!.replace(/^outage-/, '');
    assert.equal((await p.api(`/v2/outages/${outageId}`, { method: 'DELETE' })).status, 200);
    await tab.locator('#healthcheck-outages tbody tr').waitFor({ state: 'detached', timeout: 10_000 });
    assert.equal(await tab.locator('p[data-empty-for=healthcheck-outages]').isVisible(), true);
    assert.equal(await tab.evaluate('window.marker'), 42, 'no reload');
    await ctx.close();
  });
});

describe('a stream that drops and comes back', () => {
  test('the inbox catches up with what changed while it was down', async () => {
    // The browser reaches Pharos through a loopback TCP relay the test can cut (a proxy or a restart would).
    const sockets = new Set<Socket>();
    const relay = createServer((inbound) => {
      const outbound = connect(p.port, '127.0.0.1');
      for (const s of [inbound, outbound]) {
        sockets.add(s);
        s.on('error', () => s.destroy());
        s.on('close', () => sockets.delete(s));
      }
      inbound.pipe(outbound).pipe(inbound);
    });
    await new Promise<void>((r) => relay.listen(0, '127.0.0.1', () => r()));
    const base = `http://127.0.0.1:${(relay.address() as AddressInfo).port}`;
    const target = await httpTarget(200);
    const res = await p.api('/v1/monitors', { method: 'POST', json: { name: 'Offline shop', url: target.url, check_frequency: 10 } });
    const uuid = (await res.json()).uuid as string;
    await nextCheck(uuid);
    const ctx = await signedIn(VIEWPORTS[0].options, base);
    try {
      const inbox = await live(ctx, '/outages', base);
      relay.close();
      for (const s of sockets) s.destroy();
      target.respond(500);
      await nextCheck(uuid);
      await p.advance(RECHECK_MS);
      await p.advance(RECHECK_MS);
      await p.core.checks.flush();
      relay.listen(Number(new URL(base).port), '127.0.0.1');
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      await inbox.waitForFunction(() => (globalThis as any).liveHellos > 1, undefined, { timeout: 20_000 });
      await inbox.locator(`#ongoing tr[data-subject="${uuid}"][data-state=ongoing]`).waitFor({ timeout: 10_000 });
      assert.equal(await inbox.evaluate('window.marker'), 42, 'no reload: the content was loaded again in place');
    } finally {
      // The cut stream itself is reported by the browser; nothing else may be.
      for (let i = problems.length - 1; i >= 0; i--) if (problems[i]!.startsWith(base) && /net::ERR_(INCOMPLETE_CHUNKED_ENCODING|CONNECTION_REFUSED)/.test(problems[i]!)) problems.splice(i, 1);
      await ctx.close();
      relay.close();
      for (const s of sockets) s.destroy();
      await target.stop();
    }
    assert.equal((await p.api(`/v1/monitors/${uuid}`, { method: 'DELETE' })).ok, true);
  });
});
