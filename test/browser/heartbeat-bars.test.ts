import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser, openWatched, signedInContext, type ContextOptions, openLive } from '../support/browser.ts';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { setupAdmin } from '../support/console.ts';
import { httpTarget, type HttpTarget } from '../support/targets.ts';
import type { CheckResult } from '../../src/domain/check.ts';

// Issue 33 point 2 in Chromium: heartbeat bars on the overview and the monitor page follow each
// check live. A local target the test controls answers 200, then 500: both pages gain a red bar
// without a reload (desktop and 390 px phone, nothing overflows); without JavaScript the bars are
// there on reload, each with its title.
const EMAIL = 'ada@example.com';
const PW = 'correct horse battery';
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

const VIEWPORTS = [
  { name: 'desktop', width: 1366, options: { viewport: { width: 1366, height: 900 } } },
  { name: '390 px phone', width: 390, options: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } },
] as const;

const signedIn = (options: ContextOptions): Promise<BrowserContext> => signedInContext(browser, p.url, EMAIL, PW, problems, options);
const open = (ctx: BrowserContext, path: string): Promise<Page> => openWatched(ctx, p.url + path, problems);
const live = (ctx: BrowserContext, path: string): Promise<Page> => openLive(ctx, p.url + path, problems);
const nextCheck = async (uuid: string) => {
  const due = p.scheduler.nextDueAt(p.store.monitors.get(uuid)!.id)!;
  await p.advance(due - p.clock.now());
  await p.core.checks.flush();
};
const noOverflow = async (tab: Page, width: number) => {
  const scroll = (await tab.evaluate('document.documentElement.scrollWidth')) as number;
  assert.ok(scroll <= width, `no sideways scrolling at ${width} px (${scroll} px on ${tab.url()})`);
};

for (const vp of VIEWPORTS) {
  describe(`heartbeat bars (${vp.name})`, () => {
    let target: HttpTarget;
    before(async () => {
      target = await httpTarget(200);
    });
    after(() => target.stop());

    test('JavaScript on: a failed check adds a red bar to the overview and the monitor page without reload; JavaScript off: on reload', async () => {
      const res = await p.api('/v1/monitors', { method: 'POST', json: { name: `Shop ${vp.name}`, url: target.url, check_frequency: 10 } });
      assert.equal(res.status, 201);
      const uuid = (await res.json()).uuid as string;
      await nextCheck(uuid);
      await nextCheck(uuid);

      const ctx = await signedIn(vp.options);
      const overview = await live(ctx, '/');
      const monitor = await live(ctx, `/monitors/${uuid}`);
      const bars = `[data-beats="${uuid}"]`;
      for (const tab of [overview, monitor]) {
        assert.equal(await tab.locator(`${bars} i.u`).count(), 2, 'two passed checks, two green bars');
        assert.equal(await tab.locator(`${bars} i.d`).count(), 0);
        assert.equal(await tab.locator(bars).getAttribute('aria-label'), 'Last 2 checks: 2 up');
        assert.equal(await tab.locator(bars).isVisible(), true);
      }

      // The target fails: the next check lands as a red bar on both pages, over the live stream.
      target.respond(500);
      await nextCheck(uuid);
      for (const tab of [overview, monitor]) {
        await tab.locator(`${bars} i.d`).waitFor({ timeout: 10_000 });
        assert.equal(await tab.locator(`${bars} i`).count(), 3, 'one bar per check, none twice');
        assert.equal(await tab.locator(`${bars} i`).last().getAttribute('class'), 'd', 'the newest bar is the rightmost');
        assert.match((await tab.locator(`${bars} i.d`).getAttribute('title')) ?? '', /^down · \d+ ms · \d\d-\d\d \d\d:\d\d:\d\d UTC · \S+$/);
        assert.equal(await tab.locator(bars).getAttribute('aria-label'), 'Last 3 checks: 2 up, 1 down');
        assert.equal(await tab.evaluate('window.marker'), 42, 'no reload: the bar came over the stream');
        await noOverflow(tab, vp.width);
      }
      // The bar shows its title on hover (a native tooltip: no script needed).
      await overview.locator(`${bars} i.d`).hover();

      // Without JavaScript the same bars are there when the page loads.
      const noJs = await signedIn({ ...vp.options, javaScriptEnabled: false });
      for (const path of ['/', `/monitors/${uuid}`]) {
        const tab = await open(noJs, path);
        assert.deepEqual(await tab.locator(`${bars} i`).evaluateAll((els) => els.map((e) => e.className)), ['u', 'u', 'd']);
        await noOverflow(tab, vp.width);
      }
      await ctx.close();
      await noJs.close();
      // The target stops after this test: the monitor goes, so it opens no outage in the next one.
      assert.equal((await p.api(`/v1/monitors/${uuid}`, { method: 'DELETE' })).ok, true);
    });
  });
}

describe('the response-time chart is readable on a desktop and a 390 px phone, with and without JavaScript', () => {
  let uuid: string;
  before(async () => {
    const res = await p.api('/v1/monitors', { method: 'POST', json: { name: 'Charted', url: 'http://127.0.0.1:9/', check_frequency: 60, paused: true } });
    const m = await res.json();
    uuid = m.uuid;
    const now = p.clock.now();
    const results: CheckResult[] = [];
    for (let at = now - 60 * 60_000 + 1; at < now; at += 60_000) {
      for (const [region, ms] of [['london', 120], ['frankfurt', 260]] as const) results.push({ monitorId: m.id, at: region === 'london' ? at : at + 500, ok: true, latencyMs: ms, statusCode: 200, reason: null, region, probe: 'local' });
    }
    p.store.tx(() => p.store.checks.insertResults(results));
  });

  for (const vp of VIEWPORTS) {
    for (const js of [true, false]) {
      test(`${vp.name}, JavaScript ${js ? 'on' : 'off'}: labelled axes that do not overlap, a legend per region, range links`, async () => {
        const ctx = await signedIn({ ...vp.options, javaScriptEnabled: js });
        const tab = await open(ctx, `/monitors/${uuid}?range=1h`);
        const chart = tab.locator('#period .rchart svg');
        assert.equal(await chart.isVisible(), true);
        await noOverflow(tab, vp.width);
        for (const axis of ['x', 'y']) {
          const boxes = await tab.locator(`#period .axis.${axis} text`).evaluateAll((els) => els.map((e) => e.getBoundingClientRect()).map((r) => ({ left: r.left, right: r.right, top: r.top, bottom: r.bottom, height: r.height })));
          assert.ok(boxes.length >= 3, `${axis}: at least 3 labelled ticks`);
          for (const b of boxes) assert.ok(b.height >= 9, `${axis}: tick labels at least 9 px tall (${b.height})`);
          for (let i = 1; i < boxes.length; i++) {
            const [a, b] = [boxes[i - 1]!, boxes[i]!];
            assert.ok(a.right <= b.left || a.bottom <= b.top || b.bottom <= a.top, `${axis}: tick labels do not overlap`);
          }
        }
        assert.deepEqual(await tab.locator('#period ul.legend li').allInnerTexts(), ['frankfurt', 'london', 'times UTC']);
        await tab.locator('#period a', { hasText: '7d' }).click();
        await tab.waitForURL(`${p.url}/monitors/${uuid}?range=7d`);
        await tab.locator('#period a[aria-current=page]', { hasText: '7d' }).waitFor();
        assert.match((await tab.locator('#period').innerText()).replace(/\s+/g, ' '), /Uptime 7 d \(SLA\)/);
        await ctx.close();
      });
    }
  }
});
