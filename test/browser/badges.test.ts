import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../support/browser.ts';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { httpTarget, type HttpTarget } from '../support/targets.ts';

// Issue 33 point 8: a badge is embeddable. A page served by another origin (a second local HTTP
// server on another port) shows Pharos's badges in <img> elements: Chromium enforces
// Cross-Origin-Resource-Policy, so a same-origin resource (the control image) stays blocked.
let browser: Browser;
let p: TestPharos;
let target: HttpTarget;
let other: Server;
let otherUrl: string;
let uuid: string;

before(async () => {
  browser = await launchBrowser();
  target = await httpTarget(200);
  p = await startTestPharos();
  const m = await (await p.api('/v1/monitors', { method: 'POST', json: { name: 'Site', url: target.url, check_frequency: 60, public_badges: true } })).json();
  uuid = m.uuid;
  const page = await p.api('/v2/statuspages', { method: 'POST', json: { name: 'Acme', subdomain: 'acme', sections: [{ name: 'All', services: [{ monitor_uuid: uuid }] }] } });
  assert.equal(page.status, 201);
  await p.advance(5 * 60_000);
  const html = `<!doctype html><title>elsewhere</title>
<img id="page" src="${p.url}/status/acme/badge.svg">
<img id="status" src="${p.url}/badge/monitors/${uuid}/status.svg">
<img id="uptime" src="${p.url}/badge/monitors/${uuid}/uptime.svg?days=7">
<img id="response" src="${p.url}/badge/monitors/${uuid}/response-time.svg">
<img id="certificate" src="${p.url}/badge/monitors/${uuid}/certificate.svg">
<img id="control" src="${p.url}/_pharos/favicon.svg">`;
  other = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(html);
  });
  await new Promise<void>((r) => other.listen(0, '127.0.0.1', () => r()));
  otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}/`;
  assert.notEqual(new URL(otherUrl).origin, new URL(p.url).origin);
});
after(async () => {
  await browser.close();
  await new Promise<void>((r) => other.close(() => r()));
  await p.cleanup();
  await target.stop();
});

for (const javaScriptEnabled of [true, false]) {
  test(`an <img> on another origin loads the page badge and every monitor badge (JavaScript ${javaScriptEnabled ? 'on' : 'off'})`, async () => {
    const context = await browser.newContext({ javaScriptEnabled, viewport: { width: 1366, height: 900 } });
    try {
      const tab = await context.newPage();
      await tab.goto(otherUrl, { waitUntil: 'load' });
      // Image loading is settled at `load`; the evaluation runs in the page even with its JavaScript off.
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      const sizes = await tab.locator('img').evaluateAll((imgs) => imgs.map((i: any) => [i.id as string, i.complete as boolean, i.naturalWidth as number] as const));
      const byId = Object.fromEntries(sizes.map(([id, complete, w]) => [id, { complete, w }]));
      for (const id of ['page', 'status', 'uptime', 'response', 'certificate']) {
        assert.ok(byId[id]!.complete && byId[id]!.w > 20, `${id} badge drawn (${JSON.stringify(byId[id])})`);
      }
      assert.equal(byId.control!.w, 0, 'a same-origin resource stays blocked on another origin (CORP is enforced)');
    } finally {
      await context.close();
    }
  });
}

test('the badges fit a 390 px phone', async () => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
  try {
    const tab = await context.newPage();
    await tab.goto(otherUrl, { waitUntil: 'load' });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const w = await tab.locator('#status').evaluate((i: any) => i.naturalWidth as number);
    assert.ok(w > 20 && w < 390, `status badge ${w} px wide`);
  } finally {
    await context.close();
  }
});
