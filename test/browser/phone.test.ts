import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../support/browser.ts';
import { statusFixture, type StatusFixture } from '../support/status-fixture.ts';

// Issue 33 point 9, on phone widths in Chromium: the public page's uptime bars fit their card (phones
// show the last 30 days, today's bar at the right edge, inside the card) and the console's
// navigation wraps so that every link is on screen and works, JavaScript on and off.
const WIDTHS = [360, 390, 414] as const;
const PW = 'correct horse battery';
const NAV_LABELS_LAST = 'Settings';

let browser: Browser;
let f: StatusFixture;
before(async () => {
  browser = await launchBrowser();
  f = await statusFixture();
  await f.p.core.accounts.create({ email: 'ada@example.com', name: 'Ada', role: 'admin', password: PW }, { type: 'system', id: 'test', name: 'test' });
});
after(async () => {
  await browser.close();
  await f.close();
});

/** Horizontal overflow of the document (px beyond the viewport; 0 when none). */
const pageOverflow = async (tab: Page) => (await tab.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')) as number;

async function phone(width: number, javaScriptEnabled: boolean): Promise<Page> {
  const ctx = await browser.newContext({ viewport: { width, height: 800 }, isMobile: true, hasTouch: true, javaScriptEnabled });
  return ctx.newPage();
}

for (const width of WIDTHS) {
  for (const js of [true, false]) {
    describe(`${width} px, JavaScript ${js ? 'on' : 'off'}`, () => {
      test('public page: no horizontal overflow of the page or a card; today\'s bar is on screen inside its card', async () => {
        const tab = await phone(width, js);
        try {
          await tab.goto(`${f.p.url}/status/acme`);
          // Groups unfolded: their services are indented, the narrowest bars of the page.
          await tab.locator('details.group').evaluateAll((ds) => ds.forEach((d) => d.setAttribute('open', '')));
          assert.equal(await pageOverflow(tab), 0, 'page overflow');
          const cards = await tab.locator('.card').evaluateAll((cs) => cs.map((c) => c.scrollWidth - c.clientWidth));
          assert.ok(cards.length > 0 && cards.every((o) => o <= 0), `card overflow ${cards.join(',')}`);
          const rows = tab.locator('.service:has(.bars)');
          assert.ok((await rows.count()) >= 3);
          for (const row of await rows.all()) {
            const name = await row.getAttribute('data-service');
            const card = (await row.evaluate((el) => {
              const r = el.closest('.card')!.getBoundingClientRect();
              return { left: r.left, right: r.right };
            }))!;
            const today = (await row.locator('.bar').last().boundingBox())!;
            assert.ok(today && today.width >= 2, `${name}: today's bar drawn (${JSON.stringify(today)})`);
            assert.ok(today.x >= card.left && today.x + today.width <= card.right && today.x + today.width <= width, `${name}: today's bar inside the card and the screen (${JSON.stringify({ today, card })})`);
            assert.equal(await row.locator('.bar:visible').count(), 30, `${name}: the last 30 days`);
            assert.equal(await row.locator('.bars-legend span:visible').first().innerText(), '30 days ago');
            const legend = await row.locator('.bars-legend').evaluate((l) => l.scrollWidth - l.clientWidth);
            assert.ok(legend <= 0, `${name}: legend fits`);
          }
        } finally {
          await tab.context().close();
        }
      });

      test('console: no horizontal overflow; every navigation link is on screen, not covered, and Settings opens', async () => {
        const tab = await phone(width, js);
        try {
          await tab.goto(`${f.p.url}/login`);
          await tab.fill('input[name=email]', 'ada@example.com');
          await tab.fill('input[name=password]', PW);
          await tab.click('button[type=submit]');
          await tab.waitForURL(`${f.p.url}/`);
          assert.equal(await pageOverflow(tab), 0, 'page overflow');
          const links = tab.locator('header.bar nav a');
          assert.ok((await links.count()) >= 8);
          for (const link of await links.all()) {
            const label = await link.innerText();
            const box = (await link.boundingBox())!;
            assert.ok(box && box.x >= 0 && box.x + box.width <= width && box.y >= 0, `${label} on screen (${JSON.stringify(box)})`);
            const hit = await link.evaluate((a) => {
              const r = a.getBoundingClientRect();
              // eslint-disable-next-line @typescript-eslint/no-explicit-any
              return (globalThis as any).document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2) === a;
            });
            assert.ok(hit, `${label} is not covered or clipped`);
          }
          await links.filter({ hasText: NAV_LABELS_LAST }).click();
          await tab.waitForURL(`${f.p.url}/settings`);
          assert.equal(await pageOverflow(tab), 0, 'settings page overflow');
        } finally {
          await tab.context().close();
        }
      });
    });
  }
}
