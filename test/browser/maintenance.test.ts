import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser, openWatched, signedInContext, type ContextOptions } from '../support/browser.ts';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { setupAdmin } from '../support/console.ts';

// Issue 33 point 6 in Chromium: a weekly maintenance window in a time zone made from the form (with
// JavaScript only the chosen strategy's fields show; without it all do), its next occurrences listed
// (Berlin's spring-forward Sunday included), edited, an ongoing window ended now; an incident edited
// and deleted (Delete asks: a dialog with JavaScript, a confirmation page without). Desktop and 390 px
// phone. Clock: Friday 2026-03-27 12:00Z.
const EMAIL = 'ada@example.com';
const PW = 'correct horse battery';
let browser: Browser;
let p: TestPharos;
const problems: string[] = [];
before(async () => {
  browser = await launchBrowser();
  p = await startTestPharos({}, new ManualClock(Date.parse('2026-03-27T12:00:00Z')));
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
const noOverflow = async (tab: Page, width: number) => {
  const scroll = (await tab.evaluate('document.documentElement.scrollWidth')) as number;
  assert.ok(scroll <= width, `no sideways scrolling at ${width} px (${scroll} px on ${tab.url()})`);
};
const row = (tab: Page, name: string) => tab.locator('#maintenance tr', { hasText: name });

for (const vp of VIEWPORTS) {
  for (const js of [true, false]) {
    describe(`maintenance and incidents, ${vp.name}, JavaScript ${js ? 'on' : 'off'}`, () => {
      const tag = `${vp.name === 'desktop' ? 'D' : 'P'}${js ? 'j' : 'n'}`;
      let ctx: BrowserContext;
      before(async () => {
        ctx = await signedIn({ ...vp.options, javaScriptEnabled: js });
      });
      after(() => ctx.close());

      test('a weekly window in Europe/Berlin: next occurrences listed; edit it', async () => {
        const tab = await open(ctx, '/maintenance');
        const form = tab.locator('form[data-recurrence]');
        await form.locator('input[name=name]').fill(`Patch ${tag}`);
        await form.locator('input[name=timezone]').fill('Europe/Berlin');
        await form.locator('select[name=strategy]').selectOption('weekly');
        if (js) {
          // Only the weekly fields: the one-off dates and the cron field are hidden.
          await assert.doesNotReject(form.locator('input[name=start_date]').waitFor({ state: 'hidden' }));
          assert.equal(await form.locator('input[name=cron]').isVisible(), false);
          assert.equal(await form.locator('input[name=days_of_month]').isVisible(), false);
        } else {
          assert.equal(await form.locator('input[name=start_date]').isVisible(), true, 'without JavaScript every field shows');
          assert.equal(await form.locator('input[name=cron]').isVisible(), true);
        }
        await form.locator('input[name=days_of_week][value="0"]').check();
        await form.locator('input[name=start_time]').fill('02:00');
        await form.locator('input[name=duration_minutes]').fill('60');
        await form.getByRole('button', { name: 'Schedule' }).click();
        await tab.waitForURL(`${p.url}/maintenance`);
        const r = row(tab, `Patch ${tag}`);
        await r.waitFor();
        assert.match(await r.innerText(), /Weekly on Sunday at 02:00 for 1 h \(Europe\/Berlin\)/);
        // 29 March 02:00 does not exist in Berlin: the occurrence starts when the clock jumps to 03:00 CEST.
        const occurrences = await r.locator('ul.occurrences li').allInnerTexts();
        assert.deepEqual(occurrences.slice(0, 2), ['2026-03-29 03:00 CEST – 04:00 CEST', '2026-04-05 02:00 CEST – 03:00 CEST']);
        if (vp.width < 400) await noOverflow(tab, vp.width);

        await r.getByRole('link', { name: 'Edit' }).click();
        await tab.waitForURL(/\/maintenance\/mw_/);
        const edit = tab.locator('form[data-recurrence]');
        assert.equal(await edit.locator('input[name=timezone]').inputValue(), 'Europe/Berlin');
        assert.equal(await edit.locator('select[name=strategy]').inputValue(), 'weekly');
        assert.equal(await edit.locator('input[name=days_of_week][value="0"]').isChecked(), true);
        await edit.locator('input[name=days_of_week][value="3"]').check();
        await edit.locator('input[name=duration_minutes]').fill('90');
        await edit.getByRole('button', { name: 'Save' }).click();
        await tab.waitForURL(`${p.url}/maintenance`);
        await tab.locator('#maintenance tr', { hasText: `Patch ${tag}` }).getByText('Weekly on Sunday, Wednesday at 02:00 for 1 h 30 min (Europe/Berlin)').waitFor();
        await tab.close();
      });

      test('End now ends an ongoing window', async () => {
        const now = p.clock.now();
        await p.core.maintenance.create({ name: `Ongoing ${tag}`, start_date: new Date(now - 60_000).toISOString(), end_date: new Date(now + 3_600_000).toISOString(), monitors: [] });
        const tab = await open(ctx, '/maintenance');
        const r = row(tab, `Ongoing ${tag}`);
        assert.match(await r.innerText(), /ongoing/);
        await r.getByRole('button', { name: 'End now' }).click();
        await tab.locator('#maintenance tr', { hasText: `Ongoing ${tag}` }).getByText('completed').waitFor();
        assert.equal(await row(tab, `Ongoing ${tag}`).getByRole('button', { name: 'End now' }).count(), 0);
        if (vp.width < 400) await noOverflow(tab, vp.width);
        await tab.close();
      });

      test('edit an incident, then delete it: Delete asks first', async () => {
        await p.core.incidents.create({ title: { en: `Slow API ${tag}` }, type: 'incident', updates: [{ text: { en: 'Looking into it' }, type: 'investigating' }] });
        const tab = await open(ctx, '/incidents');
        const card = () => tab.locator('[data-incident]', { hasText: `API ${tag}` });
        await card().getByRole('link', { name: 'Edit' }).click();
        await tab.waitForURL(/\/incidents\/inci_/);
        await tab.locator('input[name=title_en]').fill(`Slower API ${tag}`);
        await tab.locator('select[name=update_0_type]').selectOption('identified');
        await tab.getByRole('button', { name: 'Save' }).click();
        await tab.waitForURL(`${p.url}/incidents`);
        assert.match(await card().innerText(), new RegExp(`Slower API ${tag}[\\s\\S]*identified`));
        if (vp.width < 400) await noOverflow(tab, vp.width);

        if (js) {
          // The dialog asks; dismissed, nothing is deleted.
          const asked = new Promise<string>((resolve) =>
            tab.once('dialog', (d) => {
              resolve(d.message());
              void d.dismiss();
            }),
          );
          await card().getByRole('link', { name: 'Delete…' }).click();
          assert.match(await asked, /Delete the incident Slower API/);
          assert.equal(await card().count(), 1, 'dismissed: still there');
          tab.once('dialog', (d) => void d.accept());
          await card().getByRole('link', { name: 'Delete…' }).click();
          await card().waitFor({ state: 'detached' });
        } else {
          await card().getByRole('link', { name: 'Delete…' }).click();
          await tab.waitForURL(/\/incidents\/inci_\w+\/delete$/);
          await tab.getByRole('heading', { name: /Delete the incident Slower API/ }).waitFor();
          await tab.getByRole('button', { name: 'Delete incident' }).click();
          await tab.waitForURL(`${p.url}/incidents`);
          assert.equal(await card().count(), 0);
        }
        await tab.close();
      });
    });
  }
}

describe('axe-core on the maintenance and incident pages', () => {
  test('list, edit forms and the delete confirmation: no serious or critical violation', async () => {
    const axe = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
    const w = await p.core.maintenance.create({ name: 'Axe window', monitors: [], timezone: 'Europe/Berlin', recurrence: { strategy: 'weekly', start_time: '02:00', duration_minutes: 60, days_of_week: [0] } });
    const i = await p.core.incidents.create({ title: { en: 'Axe incident', de: 'Axe' }, type: 'incident', updates: [{ text: { en: 'Looking' }, type: 'investigating' }] });
    const ctx = await signedIn({ viewport: { width: 1366, height: 900 } });
    const found: string[] = [];
    for (const path of ['/maintenance', `/maintenance/${w.uuid}`, '/incidents', `/incidents/${i.uuid}`, `/incidents/${i.uuid}/delete`]) {
      const tab = await open(ctx, path);
      await tab.evaluate(axe);
      const violations = (await tab.evaluate(() => (globalThis as unknown as { axe: { run(o: object): Promise<{ violations: unknown[] }> } }).axe.run({ resultTypes: ['violations'] }).then((r) => r.violations))) as Array<{ id: string; impact: string | null; nodes: Array<{ target: unknown[] }> }>;
      for (const v of violations) if (v.impact === 'serious' || v.impact === 'critical') found.push(`${path}: ${v.id} on ${v.nodes.map((n) => n.target.join(' ')).slice(0, 5).join(' | ')}`);
      await tab.close();
    }
    await ctx.close();
    assert.deepEqual(found, []);
  });
});

describe('the live overview follows occurrences', () => {
  for (const vp of VIEWPORTS) {
    test(`${vp.name}: a recurring occurrence starting marks the row "in maintenance" without a reload; End now clears it`, async () => {
      const res = await p.api('/v1/monitors', { method: 'POST', json: { name: `Live ${vp.name}`, url: 'http://127.0.0.1:9/', check_frequency: 300 } });
      const mon = (await res.json()).uuid as string;
      const start = new Date(p.clock.now() + 2 * 60_000);
      const w = await p.core.maintenance.create({ name: `Live window ${vp.name}`, monitors: [mon], recurrence: { strategy: 'daily', start_time: start.toISOString().slice(11, 16), duration_minutes: 30 } });
      const ctx = await signedIn(vp.options);
      // Counts the stream's `hello` (sent once the stream is registered), so the clock moves only once the page listens.
      await ctx.addInitScript(`
        window.liveHellos = 0;
        window.EventSource = class extends window.EventSource {
          constructor(url, init) { super(url, init); this.addEventListener('hello', () => window.liveHellos++); }
        };
      `);
      const tab = await open(ctx, `/?q=${encodeURIComponent(`Live ${vp.name}`)}`);
      await tab.waitForFunction(() => (globalThis as any).liveHellos > 0);
      await tab.evaluate('window.marker = 42');
      const row = tab.locator(`#row-${mon}`);
      await row.waitFor();
      assert.equal(await row.getAttribute('data-maintenance'), null, 'not yet');
      await p.advance(w.startAt + 1 - p.clock.now());
      await tab.locator(`#row-${mon}[data-maintenance]`).waitFor();
      await p.core.maintenance.endNow(w.uuid);
      await tab.locator(`#row-${mon}:not([data-maintenance])`).waitFor();
      assert.equal(await tab.evaluate('window.marker'), 42, 'no reload');
      await ctx.close();
    });
  }
});
