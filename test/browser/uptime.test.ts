import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../support/browser.ts';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { httpTarget, type HttpTarget } from '../support/targets.ts';

// Issue 33 point 4 in Chromium: one monitor with a known outage history shows the same uptime on the console
// overview, the monitor page, the public status page and in the reports API (a monitor younger than a day:
// every window is its life), and a monitor not checked yet reads "pending"; desktop and phone, JavaScript on
// and off. A real Pharos on a manual clock checks a real loopback target.
const MIN = 60_000;
const PW = 'correct horse battery';
let browser: Browser;
let p: TestPharos;
let target: HttpTarget;
let shop = '';
let fresh = '';
let expected = '';
before(async () => {
  browser = await launchBrowser();
  p = await startTestPharos();
  target = await httpTarget(200);
  await p.core.accounts.create({ email: 'ada@example.com', role: 'admin', password: PW }, { type: 'system', id: 'test', name: 'test' });
  const post = async (path: string, json: unknown) => {
    const res = await p.api(path, { method: 'POST', json });
    assert.equal(res.status, 201, await res.clone().text());
    return res.json();
  };
  shop = (await post('/v1/monitors', { name: 'Shop', url: `${target.url}/shop`, check_frequency: 60 })).uuid;
  await post('/v2/statuspages', { name: 'Shop status', subdomain: 'shop', sections: [{ name: 'All', services: [{ monitor_uuid: shop }] }] });
  await p.advance(2 * 60 * MIN);
  target.respond(500);
  await p.advance(30 * MIN);
  target.respond(200);
  await p.advance(60 * MIN);
  await p.core.checks.flush();
  const createdAt = p.store.monitors.get(shop)!.createdAt;
  const now = p.clock.now();
  const q = new URLSearchParams({ from: new Date(createdAt).toISOString(), to: new Date(now).toISOString() });
  const sla = (await (await p.api(`/v2/reporting/monitor-reports/${shop}?${q}`)).json()).sla as number;
  assert.ok(sla < 100 && sla > 80, `the report counts the outage: ${sla}`);
  expected = `${sla.toFixed(2)} %`;
  fresh = (await post('/v1/monitors', { name: 'Fresh', url: `${target.url}/fresh`, check_frequency: 600 })).uuid;
});
after(async () => {
  await browser.close();
  await target.stop();
  await p.cleanup();
});

const text = async (tab: Page, selector: string) => {
  const el = tab.locator(selector).first();
  assert.ok(await el.isVisible(), `${selector} is shown`);
  return (await el.textContent())!.trim();
};

for (const [name, viewport] of [
  ['desktop', { width: 1366, height: 900 }],
  ['phone', { width: 390, height: 844 }],
  ['small phone', { width: 360, height: 740 }],
] as const) {
  for (const javaScriptEnabled of [true, false]) {
    test(`${name}, JavaScript ${javaScriptEnabled ? 'on' : 'off'}: one figure on the overview, the monitor page and the public page; "pending" before the first check`, async () => {
      const ctx = await browser.newContext({ viewport, javaScriptEnabled });
      try {
        const tab = await ctx.newPage();
        await tab.goto(`${p.url}/login`);
        await tab.fill('input[name=email]', 'ada@example.com');
        await tab.fill('input[name=password]', PW);
        await tab.click('button[type=submit]');
        await tab.waitForURL(`${p.url}/`);
        assert.equal(await text(tab, `#row-${shop} [data-uptime="24h"]`), expected, 'overview, Uptime 24 h');
        if (name === 'desktop') assert.equal(await text(tab, `#row-${shop} [data-uptime="30d"]`), expected, 'overview, Uptime 30 d');
        assert.equal(await text(tab, `#row-${fresh} .status`), 'pending');
        assert.equal(await text(tab, `#row-${fresh} [data-uptime="24h"]`), 'pending');

        await tab.goto(`${p.url}/monitors/${shop}`);
        assert.equal(await text(tab, 'dd[data-uptime="24h"]'), expected, 'monitor page, Uptime 24 h');
        assert.equal(await text(tab, '#period [data-uptime="24h"]'), expected, 'monitor page, the 24 h period');
        await tab.goto(`${p.url}/monitors/${fresh}`);
        assert.equal(await text(tab, '#monitor-status'), 'pending');
        assert.equal(await text(tab, 'dd[data-uptime="24h"]'), 'pending');

        await tab.goto(`${p.url}/status/shop`);
        assert.equal(await text(tab, '[data-uptime="90d"]'), `${expected.replace(' %', '')} % uptime (90 days)`, 'public page, 90 days');
        const [scroll, client] = await tab.evaluate('[document.documentElement.scrollWidth, document.documentElement.clientWidth]') as [number, number];
        assert.ok(scroll <= client, `the labelled figure fits: no sideways scroll (${scroll} > ${client})`);
      } finally {
        await ctx.close();
      }
    });
  }
}
