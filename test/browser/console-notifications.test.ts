import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { launchBrowser, signInTab, VIEWPORTS, watchedTab } from '../support/browser.ts';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { setupAdmin } from '../support/console.ts';

// Contact kind `console` (issue 34 point 1) in Chromium, desktop and 390 px phone: a person adds
// "this console" on Profile, is paged, and the open tab shows the banner with the acknowledge link
// and creates a browser notification (permission granted to the context; the Notification
// constructor is recorded, so what the script asked for is checked, not the OS's toast).
const EMAIL = 'ada@example.com';
const PW = 'correct horse battery';
let browser: Browser;
let p: TestPharos;
/** The person of each viewport's test (one console method per person). */
const users: string[] = [];
const problems: string[] = [];

/** Records every `new Notification(title, options)` in `window.__notes`, keeping the real permission. */
const RECORD = `(() => {
  const Real = window.Notification;
  window.__notes = [];
  function Rec(title, options) { window.__notes.push({ title: title, body: options && options.body, tag: options && options.tag }); }
  Object.defineProperty(Rec, 'permission', { get: () => Real.permission });
  Rec.requestPermission = () => Real.requestPermission();
  window.Notification = Rec;
})();`;

before(async () => {
  browser = await launchBrowser();
  p = await startTestPharos();
  await setupAdmin(p, EMAIL, PW);
  for (const i of VIEWPORTS.keys()) users.push((await p.core.accounts.create({ email: `v${i}@example.com`, name: `Viewer ${i}`, role: 'viewer', password: PW }, { type: 'system', id: 'test', name: 'test' })).uuid);
});
after(async () => {
  await browser?.close();
  await p?.cleanup();
});

/** Resolves once `userUuid` has `n` console streams open (the tab's EventSource connected). */
async function streamsOpen(user: string, n: number): Promise<void> {
  for (let i = 0; p.core.consolePager.open(user) !== n; i++) {
    if (i > 500) throw new Error(`${p.core.consolePager.open(user)} streams open, not ${n}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('console notifications in the browser', () => {
  VIEWPORTS.forEach(({ name, options }, i) => {
    test(`${name}: add this console on Profile, get a page as a banner and a notification`, async () => {
      problems.length = 0;
      const tab = await watchedTab(browser, problems, options);
      await tab.context().grantPermissions(['notifications'], { origin: p.url });
      await tab.context().addInitScript(RECORD);
      try {
        await signInTab(tab, p.url, `v${i}@example.com`, PW);
        await tab.goto(`${p.url}/profile`);
        assert.equal(await tab.locator('[data-allow-notifications]').isHidden(), true, 'permission granted: no button');
        await tab.selectOption('#add-method select[name=kind]', 'console');
        await tab.fill('#add-method input[name=address]', `${name} browser`);
        await tab.click('#add-method button[type=submit]');
        await tab.locator('#profile-notice', { hasText: 'pages now show in every console tab' }).waitFor();
        await streamsOpen(users[i]!, 1);

        const outage = `out_browser${i}`;
        const r = await p.core.people.page(users[i]!, { outageUuid: outage, title: 'DOWN: API', text: 'HTTP 503', ackUrl: `${p.url}/ack/${outage}` });
        assert.equal(r.reached, true);
        const banner = tab.locator('#page-banner');
        await banner.locator('b', { hasText: 'DOWN: API' }).waitFor();
        assert.equal(await banner.locator('a[data-page-ack]').getAttribute('href'), `${p.url}/ack/${outage}`);
        await tab.waitForFunction('window.__notes.length > 0');
        const notes = (await tab.evaluate('window.__notes')) as Array<{ title: string; body: string; tag: string }>;
        assert.deepEqual(notes.map((n) => [n.title, n.tag]), [['DOWN: API', outage]]);
        assert.match(notes[0]!.body, /HTTP 503/);
        assert.deepEqual(problems, []);
      } finally {
        await tab.context().close();
        await streamsOpen(users[i]!, 0);
      }
    });
  });

  test('without permission the Profile page offers "Allow notifications"', async () => {
    const tab = await watchedTab(browser, problems);
    try {
      await signInTab(tab, p.url, EMAIL, PW);
      await tab.goto(`${p.url}/profile`);
      const permission = await tab.evaluate('Notification.permission');
      assert.notEqual(permission, 'granted');
      await tab.locator('[data-allow-notifications]').waitFor({ state: 'visible' });
    } finally {
      await tab.context().close();
    }
  });
});
