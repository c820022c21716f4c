import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../support/browser.ts';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { setupAdmin } from '../support/console.ts';

// Issue 33 point 11: the console's theme toggle (auto by prefers-color-scheme; a choice kept in a
// cookie and rendered by the server, so the first paint has it) and the skip link of console and
// public pages, in Chromium on a desktop and a phone, JavaScript on and off.
let browser: Browser;
let p: TestPharos;
let cookie = '';
before(async () => {
  browser = await launchBrowser();
  p = await startTestPharos();
  cookie = (await setupAdmin(p)).cookie!;
  const res = await p.api('/v2/statuspages', { method: 'POST', json: { name: 'Acme Status', subdomain: 'acme', sections: [] } });
  assert.equal(res.status, 201);
});
after(async () => {
  await browser?.close();
  await p?.cleanup();
});

const SIZES = [
  { name: 'desktop', viewport: { width: 1366, height: 900 } },
  { name: 'phone', viewport: { width: 390, height: 844 } },
];
const background = (tab: Page) => tab.evaluate(() => (globalThis as any).getComputedStyle((globalThis as any).document.body).backgroundColor as string);

describe('console theme and skip links', () => {
  for (const size of SIZES) {
    for (const js of [true, false]) {
      test(`${size.name}, JavaScript ${js ? 'on' : 'off'}: auto follows the browser; the toggle goes dark, then light, then auto, kept across pages`, async () => {
        const ctx = await browser.newContext({ viewport: size.viewport, colorScheme: 'light', javaScriptEnabled: js });
        const [name, value] = cookie.split('=') as [string, string];
        await ctx.addCookies([{ name, value, url: p.url }]);
        const tab = await ctx.newPage();
        await tab.goto(`${p.url}/outages`);
        assert.equal(await tab.locator('html').getAttribute('data-theme'), null);
        assert.equal(await background(tab), 'rgb(246, 247, 249)', 'auto with a light preference: light');
        await tab.emulateMedia({ colorScheme: 'dark' });
        assert.equal(await background(tab), 'rgb(15, 18, 23)', 'auto with a dark preference: dark');
        await tab.emulateMedia({ colorScheme: 'light' });

        await tab.locator('form.theme button').click();
        await tab.waitForURL(`${p.url}/outages`);
        await tab.locator('html[data-theme=dark]').waitFor({ state: 'attached' });
        assert.equal(await background(tab), 'rgb(15, 18, 23)', 'dark chosen over a light preference');
        assert.match(await tab.locator('form.theme button').innerText(), /Dark/);
        // Rendered by the server: the HTML itself carries the theme (no flash before a script runs).
        const jar = (await ctx.cookies()).find((c) => c.name === 'pharos_theme');
        assert.equal(jar?.value, 'dark');
        const html = await (await fetch(`${p.url}/maintenance`, { headers: { cookie: `${cookie}; pharos_theme=dark` } })).text();
        assert.match(html, /<html lang="en" data-theme="dark">/);

        await tab.locator('form.theme button').click();
        await tab.locator('html[data-theme=light]').waitFor({ state: 'attached' });
        await tab.emulateMedia({ colorScheme: 'dark' });
        assert.equal(await background(tab), 'rgb(246, 247, 249)', 'light chosen over a dark preference');
        await tab.locator('form.theme button').click();
        await tab.waitForFunction(() => !(globalThis as any).document.documentElement.hasAttribute('data-theme'));
        assert.equal(await background(tab), 'rgb(15, 18, 23)', 'back to auto: the dark preference again');
        await ctx.close();
      });
    }
    test(`${size.name}: signed out, the sign-in page has the theme chosen before (cookie), rendered by the server`, async () => {
      const ctx = await browser.newContext({ viewport: size.viewport, colorScheme: 'light', javaScriptEnabled: false });
      await ctx.addCookies([{ name: 'pharos_theme', value: 'dark', url: p.url }]);
      const tab = await ctx.newPage();
      await tab.goto(`${p.url}/login`);
      assert.equal(await tab.locator('html').getAttribute('data-theme'), 'dark');
      assert.equal(await background(tab), 'rgb(15, 18, 23)');
      await ctx.close();
    });
    test(`${size.name}: "Skip to content" is the first stop of the keyboard on console and public pages and leads to <main>`, async () => {
      const ctx = await browser.newContext({ viewport: size.viewport });
      const [name, value] = cookie.split('=') as [string, string];
      await ctx.addCookies([{ name, value, url: p.url }]);
      const tab = await ctx.newPage();
      for (const path of ['/', '/status/acme']) {
        await tab.goto(p.url + path);
        assert.equal(await tab.locator('main#main').count(), 1, `${path}: one <main id="main">`);
        await tab.keyboard.press('Tab');
        const focused = tab.locator(':focus');
        assert.equal((await focused.innerText()).trim(), 'Skip to content');
        const box = await focused.boundingBox();
        assert.ok(box && box.y >= 0 && box.x >= 0 && box.x + box.width <= size.viewport.width, `${path}: the focused skip link is on screen`);
        await tab.keyboard.press('Enter');
        await tab.waitForURL(/#main$/);
      }
      await ctx.close();
    });
  }
});
