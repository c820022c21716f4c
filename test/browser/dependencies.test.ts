import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, signedInTab, type ContextOptions } from '../support/browser.ts';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { setupAdmin } from '../support/console.ts';

// Issue 36 in Chromium: the monitor form's "Depends on" picker (views/console/picker.tsx) — typed and
// added with JavaScript on (desktop and phone), searched by GET and ticked with it off — and the
// monitor saved depends on the one picked.
const EMAIL = 'ada@example.com';
const PW = 'correct horse battery';
let browser: Browser;
let p: TestPharos;
let router = '';
const problems: string[] = [];

before(async () => {
  browser = await launchBrowser();
  p = await startTestPharos();
  await setupAdmin(p, EMAIL, PW);
  router = (await (await p.api('/v1/monitors', { method: 'POST', json: { name: 'core-router', url: 'http://127.0.0.1:9/', paused: true } })).json()).uuid;
});
after(async () => {
  await browser?.close();
  await p?.cleanup();
});

const signedIn = (options: ContextOptions): Promise<Page> => signedInTab(browser, p.url, EMAIL, PW, problems, options);
const dependsOnOf = async (tab: Page) => {
  const uuid = new URL(tab.url()).pathname.split('/').pop()!;
  return (await (await p.api(`/v1/monitors/${uuid}`)).json()).depends_on as string[];
};

for (const vp of [
  { name: 'desktop', options: { viewport: { width: 1366, height: 900 } } },
  { name: '390 px phone', options: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } },
]) {
  test(`JavaScript on, ${vp.name}: typed, added as a chip, saved`, async () => {
    problems.length = 0;
    const tab = await signedIn(vp.options);
    await tab.goto(`${p.url}/monitors/new`);
    await tab.fill('input[name=name]', `app ${vp.name}`);
    await tab.fill('input[name=url]', 'http://127.0.0.1:9/app');
    const picker = tab.locator('#pick-depends_on');
    await picker.locator('input[type=search]').pressSequentially('core');
    await picker.locator('[data-pick]', { hasText: 'core-router' }).click();
    await picker.locator('[data-picker-chips] input:checked').waitFor();
    assert.deepEqual(problems, []);
    await tab.click('button:has-text("Create monitor")');
    await tab.waitForURL(/\/monitors\/mon_/);
    assert.deepEqual(await dependsOnOf(tab), [router]);
    await tab.context().close();
  });
}

test('JavaScript off: Search submits by GET, the match is ticked, saved', async () => {
  const tab = await signedIn({ viewport: { width: 390, height: 844 }, javaScriptEnabled: false });
  await tab.goto(`${p.url}/monitors/new`);
  await tab.fill('input[name=name]', 'app no-js');
  await tab.fill('input[name=url]', 'http://127.0.0.1:9/nojs');
  await tab.fill('input[name=pick_q_depends_on]', 'core');
  await tab.locator('#pick-depends_on button[data-picker-go]').click();
  await tab.waitForURL(/pick_q_depends_on=core/);
  assert.equal(await tab.inputValue('input[name=name]'), 'app no-js');
  await tab.locator('#pick-depends_on [data-picker-results] label', { hasText: 'core-router' }).locator('input[type=checkbox]').check();
  await tab.click('button:has-text("Create monitor")');
  await tab.waitForURL(/\/monitors\/mon_/);
  assert.deepEqual(await dependsOnOf(tab), [router]);
  await tab.context().close();
});
