import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../support/browser.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { setupAdmin } from '../support/console.ts';

// Issue 34 point 2's must-show in Chromium: a person builds a weekly rotation of three users in the
// console, adds an override ("Cat covers Tuesday"), and sees the calendar put the right person on the
// right days — on a 390 px phone (a list per day) and on a desktop (a grid), with JavaScript (htmx-
// boosted forms) and without (plain posts). The clock stands at Wed 3 Jun 2026 10:00Z; weekly in
// Europe/Berlin from Mon 1 Jun, hand-off 09:00: Ann 1–8 Jun, Bob 8–15 Jun, Cat 15–22 Jun, Ann again.
const EMAIL = 'ada@example.com';
const PW = 'correct horse battery';
let browser: Browser;
let p: TestPharos;

before(async () => {
  browser = await launchBrowser();
  p = await startTestPharos({}, new ManualClock(Date.parse('2026-06-03T10:00:00Z')));
  await setupAdmin(p, EMAIL, PW);
  const actor = { type: 'system' as const, id: 'test', name: 'test' };
  for (const name of ['Ann', 'Bob', 'Cat']) await p.core.accounts.create({ email: `${name.toLowerCase()}@example.com`, name, role: 'editor', password: 'a long enough password 1' }, actor);
});
after(async () => {
  await browser?.close();
  await p?.cleanup();
});

const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } as const;
const DESKTOP = { viewport: { width: 1366, height: 900 } } as const;
const overflow = async (tab: Page) => (await tab.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')) as number;
const shiftsOf = (tab: Page, date: string) => tab.locator(`[data-date="${date}"] .oc-shift`).allInnerTexts();
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

describe('on-call console in Chromium', () => {
  for (const [device, size] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
    for (const js of [true, false]) {
      test(`${device}, JavaScript ${js ? 'on' : 'off'}: build a weekly rotation of three, add an override, read the calendar`, async () => {
        const problems: string[] = [];
        const ctx = await browser.newContext({ ...size, javaScriptEnabled: js, colorScheme: 'light' });
        const tab = await ctx.newPage();
        tab.on('pageerror', (e) => problems.push(e.message));
        const name = `Primary ${device} ${js ? 'js' : 'plain'}`;
        try {
          await tab.goto(`${p.url}/login`);
          await tab.fill('input[name=email]', EMAIL);
          await tab.fill('input[name=password]', PW);
          await tab.click('button[type=submit]');
          await tab.waitForURL(`${p.url}/`);
          await tab.click('nav a[href="/on-call"]');
          await tab.locator('h1', { hasText: 'On-call' }).waitFor();
          await tab.click('#new-schedule');
          await tab.locator('h1', { hasText: 'New on-call schedule' }).waitFor();
          assert.equal(await overflow(tab), 0, 'editor overflow');

          await tab.fill('input[name=name]', name);
          await tab.fill('input[name=time_zone]', 'Europe/Berlin');
          await tab.selectOption('select[name=layer_0_user_0]', { label: 'Ann' });
          await tab.selectOption('select[name=layer_0_user_1]', { label: 'Bob' });
          await tab.selectOption('select[name=layer_0_user_2]', { label: 'Cat' });
          await tab.selectOption('select[name=layer_0_type]', 'weekly');
          await tab.fill('input[name=layer_0_handoff]', '09:00');
          await tab.fill('input[name=layer_0_start_date]', '2026-06-01');
          await tab.click('#save-schedule');
          await tab.locator('h1', { hasText: name }).waitFor();
          await tab.locator('#notice', { hasText: 'On-call schedule created.' }).waitFor();

          assert.match(await tab.locator('#now-next').innerText(), /On call now: Ann until Mon 8 Jun 09:00 · Next: Bob from Mon 8 Jun 09:00/);
          assert.equal(await tab.locator('[data-date="2026-06-03"]').getAttribute('aria-current'), 'date', 'today marked');
          assert.deepEqual(await shiftsOf(tab, '2026-06-03'), ['Ann']);
          assert.deepEqual(await shiftsOf(tab, '2026-06-08'), ['Ann 00:00–09:00', 'Bob 09:00–24:00']);
          assert.deepEqual(await shiftsOf(tab, '2026-06-09'), ['Bob']);
          assert.deepEqual(await shiftsOf(tab, '2026-06-17'), ['Cat']);
          assert.deepEqual(await shiftsOf(tab, '2026-06-24'), ['Ann']);
          const colours = await Promise.all(['2026-06-03', '2026-06-10', '2026-06-17'].map((d) => tab.locator(`[data-date="${d}"] .oc-shift`).evaluate((el) => (globalThis as unknown as { getComputedStyle(e: unknown): { display: string; backgroundColor: string } }).getComputedStyle(el).backgroundColor)));
          assert.equal(new Set(colours).size, 3, 'a colour per person');
          const layout = await tab.locator('#on-call-calendar').evaluate((el) => (globalThis as unknown as { getComputedStyle(e: unknown): { display: string; backgroundColor: string } }).getComputedStyle(el).display);
          assert.equal(layout, device === 'phone' ? 'block' : 'grid', device === 'phone' ? 'a list per day on a phone' : 'a grid on a desktop');
          assert.equal(await overflow(tab), 0, 'calendar overflow');

          await tab.selectOption('#add-override select[name=user_uuid]', { label: 'Cat' });
          await tab.fill('#add-override input[name=start]', '2026-06-09T00:00');
          await tab.fill('#add-override input[name=end]', '2026-06-10T00:00');
          await tab.fill('#add-override input[name=note]', 'Bob at the dentist');
          await tab.click('#add-override button[type=submit]');
          await tab.locator('#notice', { hasText: 'Override added.' }).waitFor();
          assert.deepEqual(await shiftsOf(tab, '2026-06-09'), ['★ Cat']);
          assert.deepEqual(await shiftsOf(tab, '2026-06-10'), ['Bob']);
          assert.match(await tab.locator('#overrides').innerText(), /Cat covers Tue 9 Jun 00:00 to Wed 10 Jun 00:00/);
          assert.equal(await overflow(tab), 0, 'overflow with an override');
          assert.deepEqual(problems, []);
        } finally {
          await ctx.close();
        }
      });
    }
  }

  test('axe-core: the list, the editor and a schedule page with an override, light and dark, desktop and phone: no serious or critical violation', async () => {
    const ctx = await browser.newContext({ bypassCSP: true });
    const tab = await ctx.newPage();
    try {
      await tab.goto(`${p.url}/login`);
      await tab.fill('input[name=email]', EMAIL);
      await tab.fill('input[name=password]', PW);
      await tab.click('button[type=submit]');
      await tab.waitForURL(`${p.url}/`);
      const sched = (await p.core.onCall.list())[0]!.schedule.uuid;
      const problems: string[] = [];
      for (const path of ['/on-call', '/on-call/new', `/on-call/${sched}`, `/on-call/${sched}/edit`]) {
        await tab.goto(p.url + path);
        await tab.evaluate(AXE_SOURCE);
        for (const [width, height, scheme] of [[1366, 900, 'light'], [1366, 900, 'dark'], [390, 844, 'light'], [390, 844, 'dark']] as const) {
          await tab.setViewportSize({ width, height });
          await tab.emulateMedia({ colorScheme: scheme });
          const violations = (await tab.evaluate(() => (globalThis as unknown as { axe: { run(o: object): Promise<{ violations: unknown[] }> } }).axe.run({ resultTypes: ['violations'] }).then((r) => r.violations))) as Array<{ id: string; impact: string | null; nodes: Array<{ target: unknown[] }> }>;
          for (const v of violations) if (v.impact === 'serious' || v.impact === 'critical') problems.push(`${path} ${width}px ${scheme}: ${v.id} (${v.impact}) ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
        }
      }
      assert.deepEqual(problems, []);
    } finally {
      await ctx.close();
    }
  });
});
