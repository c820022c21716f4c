import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../support/browser.ts';
import { httpReceiver } from '../support/receivers.ts';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { setupAdmin } from '../support/console.ts';

// Issue 34 point 1 in Chromium on a 390 px phone: a person opens Profile, adds an SMS number, reads
// the code the (local, fake) Twilio got, verifies it and saves a rule — with JavaScript (htmx-boosted
// forms) and without (plain posts). Nothing overflows the screen sideways.
const SID = `AC${'12'.repeat(16)}`;
const EMAIL = 'ada@example.com';
const PW = 'correct horse battery';
let browser: Browser;
let p: TestPharos;
let twilio: Awaited<ReturnType<typeof httpReceiver>>;
const problems: string[] = [];

before(async () => {
  browser = await launchBrowser();
  twilio = await httpReceiver();
  twilio.state.answer = () => 201;
  p = await startTestPharos({ channels: [{ name: 'twilio', type: 'twilio', account_sid: SID, auth_token: 'tw-secret', from: '+15550001111', to: ['+15550009999'], api_url: twilio.url }] });
  await setupAdmin(p, EMAIL, PW);
});
after(async () => {
  await browser?.close();
  await p?.cleanup();
  await twilio?.close();
});

const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } as const;
const overflow = async (tab: Page) => (await tab.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')) as number;
const codeTo = (to: string) => {
  const m = twilio.received.map((r) => Object.fromEntries(new URLSearchParams(r.body))).filter((f) => f.To === to).at(-1);
  return /code: (\d{6})/.exec(m?.Body ?? '')?.[1];
};

describe('profile on a 390 px phone', () => {
  for (const js of [true, false]) {
    test(`JavaScript ${js ? 'on' : 'off'}: add an SMS number, verify it with the texted code, save a rule`, async () => {
      problems.length = 0;
      const ctx = await browser.newContext({ ...PHONE, javaScriptEnabled: js, colorScheme: 'light' });
      const tab = await ctx.newPage();
      tab.on('pageerror', (e) => problems.push(e.message));
      try {
        await tab.goto(`${p.url}/login`);
        await tab.fill('input[name=email]', EMAIL);
        await tab.fill('input[name=password]', PW);
        await tab.click('button[type=submit]');
        await tab.waitForURL(`${p.url}/`);
        await tab.click('nav a[href="/profile"]');
        await tab.locator('h1', { hasText: 'Your profile' }).waitFor();
        assert.equal(await overflow(tab), 0, 'profile page overflow');

        const number = js ? '+15550100001' : '+15550100002';
        await tab.selectOption('#add-method select[name=kind]', 'sms');
        await tab.fill('#add-method input[name=address]', number);
        await tab.fill('#add-method input[name=label]', js ? 'phone (js)' : 'phone (no js)');
        await tab.click('#add-method button[type=submit]');
        await tab.locator('#profile-notice', { hasText: 'We sent a 6-digit code' }).waitFor();
        const item = tab.locator('#contact-methods li', { hasText: js ? 'phone (js)' : 'phone (no js)' });
        await item.locator('text=unverified').waitFor();
        const code = codeTo(number);
        assert.ok(code, 'the fake Twilio got the code');
        assert.equal(await overflow(tab), 0, 'overflow with an unverified method');

        await item.locator('input[name=code]').fill(code);
        await item.locator('button', { hasText: 'Verify' }).click();
        await tab.locator('#profile-notice', { hasText: 'is verified' }).waitFor();
        const cm = await tab.locator('#contact-methods li', { hasText: js ? 'phone (js)' : 'phone (no js)' }).getAttribute('data-method');

        await tab.selectOption('#rules select[name=method_0]', cm!);
        await tab.fill('#rules input[name=delay_0]', '5');
        await tab.click('#rules button[type=submit]');
        await tab.locator('#profile-notice', { hasText: 'Notification rules saved' }).waitFor();
        const user = (await p.core.people.members()).find((m) => m.email === EMAIL)!.uuid;
        assert.deepEqual((await p.core.people.rules(user))[0], { methodUuid: cm, delayMinutes: 5 });
        assert.equal(await overflow(tab), 0, 'overflow with rules');
        assert.deepEqual(problems, []);
      } finally {
        await ctx.close();
      }
    });
  }
});
