import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, signedInTab, type ContextOptions, VIEWPORTS } from '../support/browser.ts';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { setupAdmin } from '../support/console.ts';

// Issue 33 point 7 in Chromium: the status-page editor's preview shows the unsaved draft — with
// JavaScript the sandboxed frame follows typing, without it the Preview button opens the draft in a
// new tab — and nothing is saved until Save. "Create" double-clicked makes one page. Desktop and a
// 390 px phone (no sideways scrolling, the form usable).
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
});


const signedIn = (options: ContextOptions): Promise<Page> => signedInTab(browser, p.url, EMAIL, PW, problems, options);
const newPage = async (name: string, subdomain: string): Promise<string> => {
  const m = await p.api('/v1/monitors', { method: 'POST', json: { name: `Web ${subdomain}`, url: 'http://127.0.0.1:9/', check_frequency: 60 } });
  assert.equal(m.status, 201);
  const sections = [{ name: 'Core', services: [{ monitor_uuid: (await m.json()).uuid }, { is_group: true, name_shown: 'Backends', services: [] }] }];
  const res = await p.api('/v2/statuspages', { method: 'POST', json: { name, subdomain, description: 'Saved description', sections } });
  assert.equal(res.status, 201);
  return (await res.json()).uuid;
};
const stored = async (uuid: string) => (await (await p.api(`/v2/statuspages/${uuid}`)).json()).statuspage;
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
/** axe-core's serious and critical violations on the tab's page, as printable lines. */
const axeProblems = async (tab: Page): Promise<string[]> => {
  await tab.evaluate(AXE_SOURCE);
  const found = (await tab.evaluate(() => (globalThis as any).axe.run({ resultTypes: ['violations'] }).then((r: any) => r.violations))) as Array<{ id: string; impact: string | null; nodes: Array<{ target: unknown[] }> }>;
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}) on ${v.nodes.map((n) => n.target.join(' ')).slice(0, 5).join(' | ')}`);
};
/** No sideways scrolling: the document is no wider than the viewport. */
const fits = async (tab: Page) => {
  const { scroll, width } = await tab.evaluate(() => {
    const w = globalThis as any;
    return { scroll: w.document.documentElement.scrollWidth as number, width: w.innerWidth as number };
  });
  assert.ok(scroll <= width, `the page scrolls sideways: ${scroll} > ${width}`);
};

for (const vp of VIEWPORTS) {
  const slug = vp.name === 'desktop' ? 'desk' : 'phone';
  describe(`status-page editor preview (${vp.name})`, () => {
    test('JavaScript on: the preview frame follows typing; nothing is saved until Save', async () => {
      const uuid = await newPage(`Live ${vp.name}`, `live-${slug}`);
      const tab = await signedIn(vp.options);
      await tab.goto(`${p.url}/statuspages/${uuid}`);
      const frame = tab.frameLocator('iframe[name="page-preview"]');
      await frame.getByText('Saved description').waitFor();
      await fits(tab);
      assert.deepEqual(await axeProblems(tab), [], 'axe-core: no serious or critical violation on the editor');
      await tab.fill('#page-settings textarea[name="description.en"]', 'Typed, not saved yet');
      await frame.getByText('Typed, not saved yet').waitFor();
      await tab.fill('#page-settings input[name=accent_color]', '#aa0000');
      await tab.fill('#page-settings textarea[name=custom_css]', 'body { background: rgb(1, 2, 3) }');
      // The draft's look applies inside the frame (its stylesheet loaded), not to the console.
      await tab.waitForFunction(() => {
        const w = globalThis as any;
        const doc = w.document.querySelector('iframe[name="page-preview"]')?.contentDocument;
        return !!doc?.body && w.getComputedStyle(doc.documentElement).getPropertyValue('--accent').trim() === '#aa0000' && w.getComputedStyle(doc.body).backgroundColor === 'rgb(1, 2, 3)';
      });
      const consoleLook = await tab.evaluate(() => {
        const w = globalThis as any;
        return [w.getComputedStyle(w.document.documentElement).getPropertyValue('--accent').trim(), w.getComputedStyle(w.document.body).backgroundColor];
      });
      assert.notEqual(consoleLook[0], '#aa0000', "the draft's accent stays in the frame");
      assert.notEqual(consoleLook[1], 'rgb(1, 2, 3)', "the draft's custom CSS stays in the frame");
      assert.equal((await stored(uuid)).settings.description.en, 'Saved description', 'the preview saved nothing');
      // Sandboxed: no script, form or popup runs in the frame.
      assert.deepEqual(await tab.evaluate(() => [...(globalThis as any).document.querySelector('iframe[name="page-preview"]').sandbox] as string[]), ['allow-same-origin']);
      await tab.click('#page-settings button:text-is("Save settings")');
      await tab.waitForURL(`${p.url}/statuspages/${uuid}`);
      await tab.locator('#page-settings textarea[name="description.en"]', { hasText: 'Typed, not saved yet' }).waitFor();
      assert.equal((await stored(uuid)).settings.description.en, 'Typed, not saved yet');
      assert.equal((await stored(uuid)).settings.accent_color, '#aa0000');
      await tab.context().close();
    });

    test('JavaScript off: the Preview button opens the draft in a new tab; Save saves', async () => {
      const uuid = await newPage(`Plain ${vp.name}`, `plain-${slug}`);
      const tab = await signedIn({ ...vp.options, javaScriptEnabled: false });
      await tab.goto(`${p.url}/statuspages/${uuid}`);
      await fits(tab);
      await tab.fill('#page-settings input[name=name]', `Draft ${vp.name}`);
      const [preview] = await Promise.all([tab.context().waitForEvent('page'), tab.click('#page-settings button[data-preview-button]')]);
      await preview.getByText(`Draft ${vp.name}`).first().waitFor();
      assert.equal((await stored(uuid)).name, `Plain ${vp.name}`, 'the preview saved nothing');
      await preview.close();
      await tab.click('#page-settings button:text-is("Save settings")');
      await tab.waitForURL(`${p.url}/statuspages/${uuid}`);
      assert.equal((await stored(uuid)).name, `Draft ${vp.name}`);
      // Sections by buttons that post: add, rename, move up, remove.
      const names = async () => ((await stored(uuid)).sections as Array<{ name: { en: string } }>).map((x) => x.name.en);
      await tab.fill('input[aria-label="New section name"]', 'Extras');
      await tab.click('button:text-is("Add section")');
      await tab.locator('[data-section-name="Extras"]').waitFor();
      await tab.fill('[data-section-name="Extras"] input[name=name]', 'More');
      await tab.click('[data-section-name="Extras"] button:text-is("Rename")');
      await tab.locator('[data-section-name="More"]').waitFor();
      await tab.click('[data-section-name="More"] button[aria-label="↑ move section up"]');
      await tab.locator('.card[data-section-name]').first().and(tab.locator('[data-section-name="More"]')).waitFor();
      assert.deepEqual(await names(), ['More', 'Core']);
      await fits(tab);
      await tab.click('[data-section-name="More"] button[aria-label="Remove section"]');
      await tab.locator('[data-section-name="More"]').waitFor({ state: 'detached' });
      assert.deepEqual(await names(), ['Core']);
      await tab.context().close();
    });

    test('"Create status page" double-clicked creates one page (JavaScript on)', async () => {
      const tab = await signedIn(vp.options);
      await tab.goto(`${p.url}/statuspages`);
      await fits(tab);
      await tab.fill('#statuspage-form input[name=name]', `Double ${slug}`);
      await tab.dblclick('#statuspage-create');
      await tab.locator('h1', { hasText: `Double ${slug}` }).waitFor();
      const list = await (await p.api(`/v2/statuspages?search=Double ${slug}`)).json();
      assert.equal(list.total, 1);
      await tab.context().close();
    });
  });
}

describe('no script errors or CSP refusals', () => {
  test('none seen on any page above', () => {
    assert.deepEqual(problems, []);
  });
});
