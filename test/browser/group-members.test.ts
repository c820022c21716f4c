import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, signedInTab, type ContextOptions } from '../support/browser.ts';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { setupAdmin } from '../support/console.ts';

// Issue 36 in Chromium: a group monitor's members are chosen in the searchable picker
// (views/console/picker.tsx) instead of a box of uuids — typed and added as chips with JavaScript on
// (desktop and phone), searched by GET and ticked with it off — the group saved has them, and its
// edit form shows them as chips by name.
const EMAIL = 'ada@example.com';
const PW = 'correct horse battery';
let browser: Browser;
let p: TestPharos;
const uuids: Record<string, string> = {};
const problems: string[] = [];

before(async () => {
  browser = await launchBrowser();
  p = await startTestPharos();
  await setupAdmin(p, EMAIL, PW);
  for (const name of ['nas', 'printer']) uuids[name] = (await (await p.api('/v1/monitors', { method: 'POST', json: { name, url: `http://127.0.0.1:9/${name}`, paused: true } })).json()).uuid;
});
after(async () => {
  await browser?.close();
  await p?.cleanup();
});

const signedIn = (options: ContextOptions): Promise<Page> => signedInTab(browser, p.url, EMAIL, PW, problems, options);
const membersOf = async (tab: Page) => {
  const uuid = new URL(tab.url()).pathname.split('/').pop()!;
  return (await (await p.api(`/v1/monitors/${uuid}`)).json()).group_members as string[];
};
const PICKER = '[data-picker][data-field="group.group_members"]';

for (const vp of [
  { name: 'desktop', options: { viewport: { width: 1366, height: 900 } } },
  { name: '390 px phone', options: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } },
]) {
  test(`JavaScript on, ${vp.name}: members typed, added as chips, saved, shown again on edit`, async () => {
    problems.length = 0;
    const tab = await signedIn(vp.options);
    await tab.goto(`${p.url}/monitors/new`);
    await tab.fill('input[name=name]', `home ${vp.name}`);
    await tab.selectOption('select[name=protocol]', 'group');
    await tab.fill('input[name=url]', 'group:home');
    const picker = tab.locator(PICKER);
    for (const name of ['nas', 'printer']) {
      await picker.locator('input[type=search]').pressSequentially(name);
      await picker.locator('[data-pick]', { hasText: name }).click();
      await picker.locator('[data-picker-chips] label', { hasText: name }).locator('input:checked').waitFor();
    }
    assert.deepEqual(problems, []);
    await tab.click('button:has-text("Create monitor")');
    await tab.waitForURL(/\/monitors\/mon_/);
    assert.deepEqual(await membersOf(tab), [uuids.nas, uuids.printer]);
    await tab.goto(`${tab.url()}/edit`);
    await tab.locator(PICKER).locator('[data-picker-chips] label', { hasText: 'printer' }).locator('input:checked').waitFor();
    await tab.context().close();
  });
}

test('JavaScript off: Search submits by GET, the match is ticked, saved', async () => {
  const tab = await signedIn({ viewport: { width: 390, height: 844 }, javaScriptEnabled: false });
  await tab.goto(`${p.url}/monitors/new`);
  await tab.fill('input[name=name]', 'home no-js');
  await tab.selectOption('select[name=protocol]', 'group');
  await tab.fill('input[name=url]', 'group:nojs');
  await tab.locator(PICKER).locator('input[type=search]').fill('nas');
  await tab.locator(PICKER).locator('button[data-picker-go]').click();
  await tab.waitForURL(/pick=group\.group_members/);
  assert.equal(await tab.inputValue('input[name=name]'), 'home no-js');
  await tab.locator(PICKER).locator('[data-picker-results] label', { hasText: 'nas' }).locator('input[type=checkbox]').check();
  await tab.click('button:has-text("Create monitor")');
  await tab.waitForURL(/\/monitors\/mon_/);
  assert.deepEqual(await membersOf(tab), [uuids.nas]);
  await tab.context().close();
});
