import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../support/browser.ts';
import { httpReceiver } from '../support/receivers.ts';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';

// Issue 34 point 4: a person acknowledges a page from its link on a 390 px phone, JavaScript on and
// off: the link opens a confirmation page (GET never acts), its button acknowledges, and the page
// says so. The page goes out through ntfy to a local receiver.
let browser: Browser;
let p: TestPharos;
let rx: Awaited<ReturnType<typeof httpReceiver>>;
let policy: string;

const pushes = () => rx.received.filter((r) => r.path.startsWith('/ntfy')).map((r) => JSON.parse(r.body) as { message: string });

before(async () => {
  browser = await launchBrowser();
  rx = await httpReceiver();
  p = await startTestPharos({ channels: [{ name: 'ntfy', type: 'ntfy', server: `${rx.url}/ntfy`, topic: 'team' }] });
  const me = (await (await p.api('/v1/me')).json()).uuid;
  const cm = await (await p.api('/v1/me/contact-methods', { method: 'POST', json: { kind: 'ntfy', address: 'phone-pager' } })).json();
  const code = /(\d{6})/.exec(pushes().at(-1)!.message)![1]!;
  assert.equal((await p.api(`/v1/me/contact-methods/${cm.uuid}/verify`, { method: 'POST', json: { code } })).status, 200);
  const ep = await p.api('/v1/escalation-policies', { method: 'POST', json: { name: 'Me', steps: [{ delay_minutes: 0, targets: [{ type: 'user', uuid: me }] }] } });
  assert.equal(ep.status, 201);
  policy = (await ep.json()).uuid;
});
after(async () => {
  await browser?.close();
  await p?.cleanup();
  await rx?.close();
});

describe('acknowledge from a page on a phone', () => {
  for (const js of [true, false]) {
    test(`390 px, JavaScript ${js ? 'on' : 'off'}: the link confirms, the button acknowledges`, async () => {
      const { outage } = await (await p.api('/v2/outages', { method: 'POST', json: { description: `phone test ${js}`, escalationPolicyUuid: policy } })).json();
      await p.advance(0);
      const link = /(https?:\/\/\S+\/ack\/\S+)/.exec(pushes().at(-1)!.message)![1]!.replace(/^https?:\/\/[^/]+/, p.url);
      const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, javaScriptEnabled: js });
      try {
        const tab = await ctx.newPage();
        await tab.goto(link);
        await tab.getByRole('heading', { name: `Acknowledge outage #${outage.incidentNumber}` }).waitFor();
        assert.equal((await p.core.outages.get(outage.uuid)).acknowledgedAt, null, 'opening the link does not act');
        const wide = await tab.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number);
        assert.ok(wide <= 390, `no sideways scrolling (${wide}px)`);
        await tab.getByRole('button', { name: `Acknowledge outage #${outage.incidentNumber}` }).click();
        await tab.getByRole('heading', { name: `Outage #${outage.incidentNumber} acknowledged` }).waitFor();
        assert.notEqual((await p.core.outages.get(outage.uuid)).acknowledgedAt, null);
        await tab.goBack();
        await tab.reload();
        await tab.getByRole('heading', { name: 'Link already used' }).waitFor();
      } finally {
        await ctx.close();
      }
    });
  }
});
