import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser, openLive, signedInContext, VIEWPORTS } from '../support/browser.ts';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { setupAdmin } from '../support/console.ts';
import { monitorDefaults, type MonitorSettings } from '../../src/domain/monitor.ts';
import type { Region } from '../../src/domain/regions.ts';
import { ID_PREFIX, newId } from '../../src/domain/ids.ts';
import { defaultTagColor } from '../../src/domain/tags.ts';

// Issue 33 point 5 in Chromium: tags change live. A bulk "add tag" in one (desktop) tab puts the chip
// on the rows of another tab open on the overview without a reload (JavaScript on; that tab on a
// desktop and on a 390 px phone), coloured; so do a tag's rename, recolouring and deletion through the API. Without
// JavaScript the chips are right on reload (the overview is rendered from the store).
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

/** Monitors named `names`, inserted through the store (no checks needed): name → uuid. */
function seed(names: string[]): Map<string, string> {
  const now = p.clock.now();
  const out = new Map<string, string>();
  p.store.tx((tx) => {
    for (const name of names) out.set(name, tx.monitors.insert(newId(ID_PREFIX.monitor), { ...monitorDefaults('london' as Region), name, url: `https://${name}.example.com/` } as MonitorSettings, now).uuid);
  });
  return out;
}
/** `#rrggbb` as getComputedStyle writes it. */
const rgb = (hex: string) => `rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;
const marker = (tab: Page) => tab.evaluate(() => (globalThis as unknown as { marker: number }).marker);
/** The chip's background colour as drawn (rgb(…)): coloured by the tag-colors stylesheet, not the default chip grey. */
const chipBackground = (tab: Page, selector: string) => tab.locator(selector).evaluate((el) => (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(el).backgroundColor);
/**
 * Waits until the chip is drawn in `color` (rgb(…)), then asserts it: a row that arrives live links
 * its colour stylesheet, which the browser fetches after the row is in the page (grey meanwhile).
 */
async function chipDrawnIn(tab: Page, selector: string, color: string, what: string): Promise<void> {
  await tab.waitForFunction(
    ([sel, want]) => {
      const el = (globalThis as unknown as { document: { querySelector(s: string): unknown } }).document.querySelector(sel!);
      return el !== null && (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(el).backgroundColor === want;
    },
    [selector, color] as const,
    { timeout: 10_000 },
  ).catch(() => undefined);
  assert.equal(await chipBackground(tab, selector), color, what);
}

for (const vp of VIEWPORTS) {
  describe(`tag chips follow the live stream (${vp.name})`, () => {
    test('a bulk "add tag" in one tab shows the chip in another tab without reload; so do a rename, a recolouring and a deletion', async () => {
      const slug = vp.name === 'desktop' ? 'dsk' : 'phn';
      // Two on the filtered page both tabs show ("select all on this page": the phone hides the rows' boxes), one off it.
      const uuids = seed([`${slug}-shop`, `${slug}-api`, `${slug}blog`]);
      const [shop, api, blog] = [...uuids.values()] as [string, string, string];
      // The bulk bar is a desktop tool (a phone hides it); the watching tab is on this viewport.
      const ctx: BrowserContext = await signedInContext(browser, p.url, EMAIL, PW, problems, vp.options);
      const desk: BrowserContext = await signedInContext(browser, p.url, EMAIL, PW, problems, VIEWPORTS[0].options);
      const watcher = await openLive(ctx, `${p.url}/?q=${slug}-`, problems);
      const actor = await openLive(desk, `${p.url}/?q=${slug}-`, problems);

      await actor.check('[data-select-page]');
      await actor.selectOption('select[name=action]', 'tag');
      await actor.fill('input[name=tag]', `team-${slug}:web`);
      await actor.click('form#bulk button[type=submit]');
      await actor.locator('#flash', { hasText: 'Tagged 2 monitors.' }).waitFor();

      const chip = (uuid: string) => `#row-${uuid} li[data-tag="team-${slug}:web"]`;
      await watcher.locator(chip(shop)).waitFor({ timeout: 10_000 });
      await watcher.locator(chip(api)).waitFor();
      assert.equal(await watcher.locator(chip(shop)).innerText(), `team-${slug}: web`);
      assert.equal(await watcher.locator(`#row-${blog}`).count(), 0, 'a row of another filter is not added');
      assert.equal(await marker(watcher), 42, 'no reload');
      await chipDrawnIn(watcher, chip(shop), rgb(defaultTagColor(`team-${slug}`)), 'the new tag has its colour');
      // The acting tab shows them too (its boosted post answered with the list), without a reload either.
      await actor.locator(chip(shop)).waitFor();
      assert.equal(await marker(actor), 42, 'the acting tab: no reload');
      // Without JavaScript: right on (re)load.
      const plainCtx = await signedInContext(browser, p.url, EMAIL, PW, problems, { ...vp.options, javaScriptEnabled: false });
      const plain = await plainCtx.newPage();
      await plain.goto(`${p.url}/?q=${slug}-`);
      assert.equal(await plain.locator(chip(api)).innerText(), `team-${slug}: web`);
      await plainCtx.close();

      // The tag's uuid, then renamed and recoloured through the API: every row carrying it follows.
      const tag = ((await (await p.api('/v1/tags')).json()) as Array<{ uuid: string; name: string }>).find((t) => t.name === `team-${slug}`)!;
      assert.equal((await p.api(`/v1/tags/${tag.uuid}`, { method: 'PUT', json: { name: `squad-${slug}`, color: '#7c3aed' } })).status, 200);
      const renamed = (uuid: string) => `#row-${uuid} li[data-tag="squad-${slug}:web"]`;
      await watcher.locator(renamed(shop)).waitFor({ timeout: 10_000 });
      await watcher.locator(renamed(api)).waitFor();
      await chipDrawnIn(watcher, renamed(shop), rgb('#7c3aed'), 'the recoloured tag has its new colour');

      assert.equal((await p.api(`/v1/tags/${tag.uuid}`, { method: 'DELETE' })).status, 200);
      await watcher.locator(`#row-${shop} li.tag`).waitFor({ state: 'detached', timeout: 10_000 });
      await watcher.locator(`#row-${api} li.tag`).waitFor({ state: 'detached' });
      assert.equal(await marker(watcher), 42, 'no reload');
      await ctx.close();
      await desk.close();
    });
  });
}
