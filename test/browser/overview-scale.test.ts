import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../support/browser.ts';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { setupAdmin } from '../support/console.ts';
import { monitorDefaults, type MonitorSettings } from '../../src/domain/monitor.ts';
import type { Region } from '../../src/domain/regions.ts';
import { ID_PREFIX, newId } from '../../src/domain/ids.ts';

// Issue 33 point 5 in Chromium: the paged overview. Search as you type replaces only the list (no
// reload, the address follows); without JavaScript the same search is a form. "Select all on this
// page" + Pause pauses the page's monitors and answers "Paused 10 monitors." (JS on and off). Live
// updates replace rows on the page, never add rows of another page or filter, and keep the counts.
const EMAIL = 'ada@example.com';
const PW = 'correct horse battery';
let browser: Browser;
let p: TestPharos;
const problems: string[] = [];
const uuidOf = new Map<string, string>();
const GROUPS = ['alpha', 'beta', 'gamma', 'delta'];

before(async () => {
  browser = await launchBrowser();
  p = await startTestPharos();
  const now = p.clock.now();
  p.store.tx((tx) => {
    for (const g of GROUPS) {
      for (let i = 0; i < 30; i++) {
        const name = `${g}-${String(i).padStart(2, '0')}`;
        const m = tx.monitors.insert(newId(ID_PREFIX.monitor), { ...monitorDefaults('london' as Region), name, url: `https://${name}.example.com/` } as MonitorSettings, now);
        uuidOf.set(name, m.uuid);
      }
    }
  });
  await setupAdmin(p, EMAIL, PW);
});
after(async () => {
  await browser.close();
  await p.cleanup();
  assert.deepEqual(problems, [], 'no script errors');
});

async function signedIn(options: Parameters<Browser['newContext']>[0]): Promise<Page> {
  const ctx = await browser.newContext({ colorScheme: 'light', ...options });
  const tab = await ctx.newPage();
  tab.on('pageerror', (e) => problems.push(e.message));
  await tab.goto(`${p.url}/login`);
  await tab.fill('input[name=email]', EMAIL);
  await tab.fill('input[name=password]', PW);
  await tab.click('button[type=submit]');
  await tab.waitForURL(`${p.url}/`);
  return tab;
}
const names = (tab: Page) => tab.locator('#overview tbody tr td:nth-child(3) a').allInnerTexts();
const paused = (name: string) => p.store.monitors.get(uuidOf.get(name)!)!.paused;

describe('the paged overview in Chromium', () => {
  for (const vp of [
    { name: 'desktop', options: { viewport: { width: 1366, height: 900 } } },
    { name: '390 px phone', options: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } },
  ] as const) {
    test(`search as you type replaces the list only, without reload (${vp.name})`, async () => {
      const tab = await signedIn(vp.options);
      await tab.waitForFunction(() => (globalThis as unknown as { htmx?: unknown }).htmx !== undefined);
      assert.equal((await names(tab)).length, 50, 'one page of 50');
      await tab.evaluate(() => ((globalThis as unknown as { marker: number }).marker = 42));
      await tab.locator('input[name=q]').pressSequentially('gamma-1', { delay: 30 });
      await tab.waitForFunction(() => (globalThis as unknown as { document: { querySelectorAll(s: string): { length: number } } }).document.querySelectorAll('#overview tbody tr').length === 10);
      assert.deepEqual(await names(tab), Array.from({ length: 10 }, (_, i) => `gamma-1${i}`));
      assert.equal(await tab.evaluate(() => (globalThis as unknown as { marker: number }).marker), 42, 'no reload');
      await tab.waitForURL(/[?&]q=gamma-1/);
      assert.equal(await tab.locator('input[name=q]').inputValue(), 'gamma-1', 'the field keeps what was typed');
      await tab.context().close();
    });
  }

  test('JavaScript on: "select all on this page" and Pause pauses the page and says so', async () => {
    const tab = await signedIn({ viewport: { width: 1366, height: 900 } });
    await tab.goto(`${p.url}/?q=beta-0`);
    await tab.waitForFunction(() => (globalThis as unknown as { htmx?: unknown }).htmx !== undefined);
    await tab.check('[data-select-page]');
    assert.equal(await tab.locator('input[name=uuid]:checked').count(), 10, 'every row ticked');
    await tab.selectOption('select[name=action]', 'pause');
    await tab.click('form#bulk button[type=submit]');
    await tab.locator('#flash').waitFor();
    assert.equal(await tab.locator('#flash').innerText(), 'Paused 10 monitors.');
    assert.match(tab.url(), /q=beta-0/);
    for (let i = 0; i < 10; i++) assert.equal(paused(`beta-0${i}`), true);
    assert.equal(await tab.locator('#overview tbody tr[data-status=paused]').count(), 10);
    await tab.context().close();
  });

  test('JavaScript off: the search is a form, ticked rows are paused by a plain post', async () => {
    const tab = await signedIn({ viewport: { width: 1366, height: 900 }, javaScriptEnabled: false });
    await tab.fill('input[name=q]', 'delta-2');
    await tab.press('input[name=q]', 'Enter');
    await tab.waitForURL(/q=delta-2/);
    assert.equal((await names(tab)).length, 10);
    await tab.check(`input[name=uuid][value=${uuidOf.get('delta-21')}]`);
    await tab.check(`input[name=uuid][value=${uuidOf.get('delta-23')}]`);
    await tab.selectOption('select[name=action]', 'pause');
    await tab.click('form#bulk button[type=submit]');
    await tab.waitForURL(/done=pause/);
    assert.equal(await tab.locator('#flash').innerText(), 'Paused 2 monitors.');
    assert.deepEqual([paused('delta-21'), paused('delta-22'), paused('delta-23')], [true, false, true]);
    await tab.context().close();
  });

  test('live: a changed row on the page is replaced, one of another page is not added, the counts follow', async () => {
    const tab = await signedIn({ viewport: { width: 1366, height: 900 } });
    await tab.goto(`${p.url}/?q=alpha-0`);
    await tab.waitForFunction(() => (globalThis as unknown as { htmx?: unknown }).htmx !== undefined);
    await tab.evaluate(() => ((globalThis as unknown as { marker: number }).marker = 7));
    const before = Number(await tab.locator('[data-count=paused] b').innerText());
    // Off the page first (alpha-15 is not in "alpha-0"), then on it: the hub sends them in this order.
    const rename = (name: string, to: string) => p.api(`/v1/monitors/${uuidOf.get(name)}`, { method: 'PUT', json: { name: to, url: `https://${name}.example.com/` } });
    assert.equal((await rename('alpha-15', 'alpha-15 renamed')).status, 200);
    assert.equal((await p.api(`/v1/monitors/${uuidOf.get('alpha-03')}`, { method: 'PUT', json: { name: 'alpha-03', url: 'https://alpha-03.example.com/', paused: true } })).status, 200);
    await tab.locator(`#row-${uuidOf.get('alpha-03')}[data-status=paused]`).waitFor();
    await tab.locator('[data-count=paused] b', { hasText: String(before + 1) }).waitFor();
    assert.equal(await tab.locator(`#row-${uuidOf.get('alpha-15')}`).count(), 0, 'a row of another filter is not added');
    assert.equal(await tab.locator('#overview tbody tr').count(), 10);
    assert.equal(await tab.evaluate(() => (globalThis as unknown as { marker: number }).marker), 7, 'no reload');
    await tab.context().close();
  });
});
