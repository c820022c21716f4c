import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, signedInTab, type ContextOptions, VIEWPORTS } from '../support/browser.ts';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { setupAdmin } from '../support/console.ts';
import { ID_PREFIX, newId } from '../../src/domain/ids.ts';
import { monitorDefaults } from '../../src/domain/monitor.ts';

// Issue 33 point 5 in Chromium: searchable pickers instead of checkbox walls, and tag chips. With
// 2,000 monitors the status-page and maintenance forms have fewer than 100 checkboxes; a monitor is
// found by typing its name or a tag, added, saved, and the page shows it — JavaScript on (results
// as you type) and off (the search submits the form by GET and the matches come back as
// checkboxes, what was typed and chosen kept). Tags and a group set on the monitor form show as
// coloured chips on the monitor page, with contrast axe-core accepts.
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const EMAIL = 'ada@example.com';
const PW = 'correct horse battery';
const SEEDED = 2_000;
let browser: Browser;
let p: TestPharos;
const problems: string[] = [];

before(async () => {
  browser = await launchBrowser();
  p = await startTestPharos();
  await setupAdmin(p, EMAIL, PW);
  // Seeded through the store in one transaction (paused: no checks run), a few with tags.
  const now = p.clock.now();
  p.store.tx((tx) => {
    for (let i = 0; i < SEEDED; i++) {
      const name = i === 1234 ? 'payments-api' : i === 777 ? 'search-backend' : `svc-${String(i).padStart(4, '0')}`;
      const tags = i === 1234 ? [{ name: 'billing', value: '' }] : i % 100 === 0 ? [{ name: 'env', value: 'prod' }] : [];
      tx.monitors.insert(newId(ID_PREFIX.monitor), { ...monitorDefaults('london'), name, url: `http://127.0.0.1:9/${i}`, paused: true, tags }, now);
    }
  });
});
after(async () => {
  await browser?.close();
  await p?.cleanup();
});


const signedIn = (options: ContextOptions): Promise<Page> => signedInTab(browser, p.url, EMAIL, PW, problems, options);
const checkboxes = (tab: Page) => tab.locator('input[type=checkbox]').count();

describe('status-page form: a picker per section, not a checkbox per monitor', () => {
  for (const vp of VIEWPORTS) {
    test(`JavaScript on, ${vp.name}: found by typing (name, then tag), added, saved, shown`, async () => {
      problems.length = 0;
      const tab = await signedIn(vp.options);
      await tab.goto(`${p.url}/statuspages`);
      assert.ok((await checkboxes(tab)) < 100, `${await checkboxes(tab)} checkboxes`);
      await tab.fill('input[name=name]', `Payments ${vp.name}`);
      await tab.fill('input[name=section_0_name]', 'Core');
      const picker = tab.locator('#pick-section_0_services');
      await picker.locator('input[type=search]').pressSequentially('paym');
      await picker.locator('[data-pick]', { hasText: 'payments-api' }).click();
      await picker.locator('[data-picker-chips] input[type=checkbox]:checked').waitFor();
      // "search" finds a name containing it; by tag: "env:prod" is on every 100th monitor.
      await picker.locator('input[type=search]').pressSequentially('search');
      await picker.locator('[data-pick]', { hasText: 'search-backend' }).click();
      await picker.locator('input[type=search]').pressSequentially('env:pr');
      await picker.locator('[data-pick]', { hasText: 'svc-0100' }).click();
      assert.equal(await picker.locator('[data-picker-chips] input:checked').count(), 3);
      await picker.locator('input[type=search]').pressSequentially('billing');
      await picker.getByText('No match', { exact: false }).waitFor(); // its only monitor is chosen already
      assert.deepEqual(problems, []);
      await tab.click('button:has-text("Create status page")');
      await tab.waitForURL(/\/statuspages\/sp_/);
      await tab.locator('[data-service="payments-api"]').waitFor();
      await tab.locator('[data-service="search-backend"]').waitFor();
      await tab.locator('[data-service="svc-0100"]').waitFor();
      await tab.context().close();
    });
  }

  test('JavaScript off: the search submits by GET, matches come back as checkboxes, what was typed is kept', async () => {
    const tab = await signedIn({ viewport: { width: 390, height: 844 }, javaScriptEnabled: false });
    await tab.goto(`${p.url}/statuspages`);
    assert.ok((await checkboxes(tab)) < 100);
    await tab.fill('input[name=name]', 'Billing page');
    await tab.fill('input[name=section_0_name]', 'Money');
    await tab.fill('input[name=pick_q_section_0_services]', 'billing');
    await tab.locator('#pick-section_0_services button[data-picker-go]').click();
    await tab.waitForURL(/pick_q_section_0_services=billing/);
    assert.equal(await tab.inputValue('input[name=name]'), 'Billing page');
    assert.equal(await tab.inputValue('input[name=section_0_name]'), 'Money');
    const match = tab.locator('#pick-section_0_services [data-picker-results] label', { hasText: 'payments-api' });
    await match.locator('input[type=checkbox]').check();
    assert.ok((await checkboxes(tab)) < 100);
    await tab.click('button:has-text("Create status page")');
    await tab.waitForURL(/\/statuspages\/sp_/);
    await tab.locator('[data-service="payments-api"]').waitFor();
    await tab.context().close();
  });
});

describe('status-page editor: a picker per "add" form, not a select of every service', () => {
  let editUrl = '';
  before(async () => {
    const pay = ((await (await p.api('/v1/monitors')).json()) as Array<{ name: string; uuid: string }>).find((m) => m.name === 'payments-api')!.uuid;
    const res = await p.api('/v2/statuspages', { method: 'POST', json: { name: 'Editor page', subdomain: 'editor-page', sections: [{ name: 'Core', services: [{ monitor_uuid: pay }] }] } });
    assert.equal(res.status, 201, JSON.stringify(await res.clone().json()));
    editUrl = `${p.url}/statuspages/${(await res.json()).uuid}`;
  });
  const small = async (tab: Page) => {
    assert.ok((await checkboxes(tab)) < 100, `${await checkboxes(tab)} checkboxes`);
    assert.ok((await tab.locator('option').count()) < 100, `${await tab.locator('option').count()} options`);
  };

  test('JavaScript on, desktop: typed, added to the section, shown', async () => {
    problems.length = 0;
    const tab = await signedIn(VIEWPORTS[0].options);
    await tab.goto(editUrl);
    await small(tab);
    const picker = tab.locator('#pick-s0');
    await picker.locator('input[type=search]').pressSequentially('svc-0042');
    await picker.locator('[data-pick]', { hasText: 'svc-0042' }).click();
    await picker.locator('[data-picker-chips] input:checked').waitFor();
    assert.deepEqual(problems, []);
    await tab.locator('form', { has: picker }).locator('button:text-is("Add")').click();
    await tab.locator('[data-service="svc-0042"]').waitFor();
    await tab.context().close();
  });

  test('JavaScript off, phone: a group is made, its picker searches by GET, the match is ticked and added to the group', async () => {
    const tab = await signedIn({ viewport: { width: 390, height: 844 }, javaScriptEnabled: false });
    await tab.goto(editUrl);
    await tab.fill('input[name=name][placeholder="New group"]', 'Backends');
    await tab.click('button:text-is("Add group")');
    await tab.locator('[data-service="Backends"]').waitFor();
    await small(tab);
    const groupPicker = tab.locator('[data-service="Backends"] [data-picker]');
    await groupPicker.locator('input[type=search]').fill('svc-0043');
    await groupPicker.locator('button[data-picker-go]').click();
    await tab.waitForURL(/pick_q_s0g\d+=svc-0043/);
    await tab.locator('[data-service="Backends"] [data-picker-results] label', { hasText: 'svc-0043' }).locator('input').check();
    await tab.locator('[data-service="Backends"] button:text-is("Add to group")').click();
    await tab.locator('[data-child="svc-0043"]').waitFor();
    await tab.context().close();
  });
});

describe('maintenance form: a picker, not 2,000 checkboxes', () => {
  type Win = { name: string; monitors: string[] };
  const windows = async (): Promise<Win[]> => {
    const body = (await (await p.api('/v1/maintenance-windows')).json()) as Win[] | { maintenance_windows?: Win[] };
    return Array.isArray(body) ? body : (body.maintenance_windows ?? []);
  };
  const uuidOf = async (name: string) => ((await (await p.api('/v1/monitors')).json()) as Array<{ name: string; uuid: string }>).find((m) => m.name === name)!.uuid;
  const monitorsOfWindow = async (name: string) => {
    return (await windows()).find((w) => w.name === name)?.monitors ?? [];
  };

  test('JavaScript on, desktop: Enter picks the first match without submitting; Enter in the name field schedules', async () => {
    const tab = await signedIn(VIEWPORTS[0].options);
    await tab.goto(`${p.url}/maintenance`);
    assert.ok((await checkboxes(tab)) < 100, `${await checkboxes(tab)} checkboxes`);
    await tab.fill('input[name=name]', 'DB upgrade');
    await tab.fill('input[name=start_date]', '2030-01-01T10:00');
    await tab.fill('input[name=end_date]', '2030-01-01T11:00');
    const picker = tab.locator('#pick-monitors');
    await picker.locator('input[type=search]').pressSequentially('payments');
    await picker.locator('[data-pick]').first().waitFor();
    await picker.locator('input[type=search]').press('Enter'); // Enter adds the first match, and does not submit
    await picker.locator('[data-picker-chips] input:checked').waitFor();
    // Enter in the name field submits the form with its own button (not the picker's Search).
    await tab.locator('input[name=name]').press('Enter');
    // The URL is /maintenance before and after: wait for the list to show the new window.
    await tab.locator('#maintenance', { hasText: 'DB upgrade' }).waitFor();
    assert.deepEqual(await monitorsOfWindow('DB upgrade'), [await uuidOf('payments-api')]);
    await tab.context().close();
  });

  test('JavaScript off, phone: search, tick, schedule', async () => {
    const tab = await signedIn({ viewport: { width: 390, height: 844 }, javaScriptEnabled: false });
    await tab.goto(`${p.url}/maintenance`);
    await tab.fill('input[name=name]', 'Search reindex');
    await tab.fill('input[name=start_date]', '2030-02-01T10:00');
    await tab.fill('input[name=end_date]', '2030-02-01T11:00');
    await tab.fill('input[name=pick_q_monitors]', 'search-back');
    await tab.locator('#pick-monitors button[data-picker-go]').click();
    await tab.waitForURL(/pick_q_monitors=search-back/);
    await tab.locator('#pick-monitors [data-picker-results] label', { hasText: 'search-backend' }).locator('input').check();
    assert.ok((await checkboxes(tab)) < 100);
    await tab.click('button:has-text("Schedule")');
    // The URL is /maintenance before and after: wait for the list to show the new window.
    await tab.locator('#maintenance', { hasText: 'Search reindex' }).waitFor();
    assert.deepEqual(await monitorsOfWindow('Search reindex'), [await uuidOf('search-backend')]);
    await tab.context().close();
  });
});

describe('tags and group on the monitor form and page', () => {
  test('JavaScript off: tags and a group typed in the edit form show as chips on the monitor page; axe finds no contrast problem (light and dark)', async () => {
    const uuid = ((await (await p.api('/v1/monitors')).json()) as Array<{ name: string; uuid: string }>).find((m) => m.name === 'svc-0001')!.uuid;
    // Colours light and dark: each chip's text is black or white, whichever contrasts more.
    for (const [name, color] of [['sunny', '#fde047'], ['night', '#1e293b'], ['mid', '#808080'], ['brand', '#2563eb']]) await p.api('/v1/tags', { method: 'POST', json: { name, color } });
    const tab = await signedIn({ viewport: { width: 1366, height: 900 }, javaScriptEnabled: false });
    await tab.goto(`${p.url}/monitors/${uuid}/edit`);
    await tab.fill('input[name=tags]', 'sunny, night, mid, brand, env:eu-west');
    await tab.fill('input[name=group]', 'Backends');
    await tab.click('button:has-text("Save")');
    await tab.waitForURL(`${p.url}/monitors/${uuid}`);
    await tab.context().close();
    // The page itself with JavaScript on (axe runs as a script).
    const js = await signedIn({ viewport: { width: 1366, height: 900 } });
    await js.goto(`${p.url}/monitors/${uuid}`);
    await check(js);
    await js.context().close();
  });
});

async function check(tab: Page): Promise<void> {
  {
    const chips = tab.locator('#monitor-tags .tag');
    assert.deepEqual(await chips.allTextContents(), ['sunny', 'night', 'mid', 'brand', 'env: eu-west']);
    assert.match((await tab.locator('#monitor-tags').textContent()) ?? '', /Group: Backends/);
    // Each chip and the group lead to the overview filtered by them.
    assert.equal(await tab.locator('#monitor-tags .tag a', { hasText: 'env: eu-west' }).getAttribute('href'), '/?tag=env');
    assert.equal(await tab.locator('#monitor-tags .group-name a').getAttribute('href'), '/?group=Backends');
    const bg = await tab.locator('#monitor-tags .tag', { hasText: 'sunny' }).evaluate((el) => {
      const style = (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string; color: string } }).getComputedStyle(el);
      return [style.backgroundColor, style.color];
    });
    assert.deepEqual(bg, ['rgb(253, 224, 71)', 'rgb(0, 0, 0)']);
    for (const scheme of ['light', 'dark'] as const) {
      await tab.emulateMedia({ colorScheme: scheme });
      await tab.evaluate(AXE_SOURCE);
      const bad = (await tab.evaluate(() =>
        (globalThis as unknown as { axe: { run(c: unknown, o: object): Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }> } }).axe
          .run({ include: [['#monitor-tags']] }, { resultTypes: ['violations'] })
          .then((r) => r.violations.map((v) => `${v.id} ${v.impact} ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`)),
      )) as string[];
      assert.deepEqual(bad, [], scheme);
    }
  }
}
