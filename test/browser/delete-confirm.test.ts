import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Dialog, Page } from 'playwright-core';
import { launchBrowser, signedInTab, type ContextOptions, VIEWPORTS } from '../support/browser.ts';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { setupAdmin } from '../support/console.ts';

// Issue 33 point 1 in Chromium: one click on Delete never deletes. With JavaScript the browser's
// confirm() dialog asks (htmx reads hx-confirm from the element that makes the request: it used to
// sit on a button inside a boosted form, whose request is the form's, so it was never asked);
// dismissing keeps the monitor, accepting deletes it. Without JavaScript Delete leads to the
// confirmation page: Cancel keeps, Pause instead pauses, Delete deletes. Desktop and a 390 px phone.
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
const monitor = async (name: string): Promise<string> => {
  const res = await p.api('/v1/monitors', { method: 'POST', json: { name, url: 'http://127.0.0.1:9/', check_frequency: 60 } });
  assert.equal(res.status, 201);
  return (await res.json()).uuid;
};
const exists = async (uuid: string) => (await p.api(`/v1/monitors/${uuid}`)).status === 200;
/** The next dialog of `tab` (fails when none comes within 5 s), answered by `answer`; its question. */
const nextDialog = async (tab: Page, answer: (d: Dialog) => Promise<void>): Promise<string> => {
  const d = await tab.waitForEvent('dialog', { timeout: 5_000 });
  await answer(d);
  return d.message();
};

for (const vp of VIEWPORTS) {
  describe(`delete asks first (${vp.name})`, () => {
    test('JavaScript on: the dialog appears; dismissing keeps the monitor, accepting deletes it', async () => {
      const uuid = await monitor(`Shop ${vp.name}`);
      const tab = await signedIn(vp.options);
      await tab.goto(`${p.url}/monitors/${uuid}`);
      await tab.waitForFunction('window.htmx !== undefined');
      const dismissed = nextDialog(tab, (d) => d.dismiss());
      await tab.click('#monitor-actions a[data-delete]');
      assert.match(await dismissed, /Delete this monitor/);
      assert.equal(tab.url(), `${p.url}/monitors/${uuid}`);
      assert.equal(await exists(uuid), true, 'dismissed: the monitor stays');

      const accepted = nextDialog(tab, (d) => d.accept());
      await tab.click('#monitor-actions a[data-delete]');
      await accepted;
      await tab.waitForURL(`${p.url}/`);
      assert.equal(await exists(uuid), false, 'accepted: the monitor is deleted');
      assert.equal(await tab.locator(`#row-${uuid}`).count(), 0);

      // A status page asks the same way.
      const sp = await (await p.api('/v2/statuspages', { method: 'POST', json: { name: `Page ${vp.name}`, subdomain: `page-${vp.name.replace(/\W/g, '')}`, sections: [] } })).json();
      await tab.goto(`${p.url}/statuspages/${sp.uuid}`);
      await tab.waitForFunction('window.htmx !== undefined');
      const keep = nextDialog(tab, (d) => d.dismiss());
      await tab.click('a[data-delete]');
      assert.match(await keep, /Delete the status page/);
      assert.equal((await p.api(`/v2/statuspages/${sp.uuid}`)).status, 200);
      const drop = nextDialog(tab, (d) => d.accept());
      await tab.click('a[data-delete]');
      await drop;
      await tab.waitForURL(`${p.url}/statuspages`);
      assert.equal((await p.api(`/v2/statuspages/${sp.uuid}`)).status, 404);
      await tab.context().close();
    });

    test('JavaScript off: the confirmation page; Cancel keeps, Pause instead pauses, Delete deletes', async () => {
      const uuid = await monitor(`Blog ${vp.name}`);
      const tab = await signedIn({ ...vp.options, javaScriptEnabled: false });
      let dialogs = 0;
      tab.on('dialog', () => dialogs++);
      await tab.goto(`${p.url}/monitors/${uuid}`);
      await tab.click('#monitor-actions a[data-delete]');
      await tab.waitForURL(`${p.url}/monitors/${uuid}/delete`);
      assert.match(await tab.locator('h1').innerText(), /Delete the monitor Blog/);
      assert.match(await tab.locator('#delete-losses').innerText(), /check history since[\s\S]*0 outages/);
      for (const label of ['Delete monitor', 'Pause instead', 'Cancel']) assert.equal(await tab.locator(`#delete-actions >> text=${label}`).isVisible(), true, label);
      const overflow = (await tab.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')) as number;
      assert.ok(overflow <= 0, `no sideways scrolling (${overflow} px)`);

      await tab.click('#delete-actions >> text=Cancel');
      await tab.waitForURL(`${p.url}/monitors/${uuid}`);
      assert.equal(await exists(uuid), true, 'Cancel keeps it');

      await tab.click('#monitor-actions a[data-delete]');
      await tab.waitForURL(`${p.url}/monitors/${uuid}/delete`);
      await tab.click('#delete-actions >> text=Pause instead');
      await tab.waitForURL(`${p.url}/monitors/${uuid}`);
      assert.equal((await (await p.api(`/v1/monitors/${uuid}`)).json()).paused, true, 'Pause instead pauses it');

      await tab.click('#monitor-actions a[data-delete]');
      await tab.waitForURL(`${p.url}/monitors/${uuid}/delete`);
      assert.equal(await tab.locator('#delete-actions >> text=Pause instead').count(), 0, 'paused already');
      await tab.click('#delete-actions >> text=Delete monitor');
      await tab.waitForURL(`${p.url}/`);
      assert.equal(await exists(uuid), false, 'Delete deletes it');
      assert.equal(dialogs, 0);
      await tab.context().close();
    });
  });
}

test('an escalation policy asks too (JavaScript on): dismissed it stays, accepted it goes', async () => {
  const hook = await (await p.api('/v1/integrations', { method: 'POST', json: { name: 'hook', type: 'webhook', settings: { url: 'http://127.0.0.1:9/hook' } } })).json();
  const res = await p.api('/v1/escalation-policies', { method: 'POST', json: { name: 'Night shift', steps: [{ delay_minutes: 0, targets: [{ type: 'integration', uuid: hook.uuid }] }] } });
  assert.equal(res.status, 201);
  const policy = await res.json();
  const tab = await signedIn(VIEWPORTS[0].options);
  await tab.goto(`${p.url}/escalation-policies/${policy.uuid}`);
  await tab.waitForFunction('window.htmx !== undefined');
  const keep = nextDialog(tab, (d) => d.dismiss());
  await tab.click('#delete-policy button');
  assert.match(await keep, /Delete the escalation policy Night shift/);
  assert.equal((await p.api(`/v1/escalation-policies/${policy.uuid}`)).status, 200);
  const drop = nextDialog(tab, (d) => d.accept());
  await tab.click('#delete-policy button');
  await drop;
  await tab.waitForURL(/\/escalation-policies\?done=deleted/);
  assert.equal((await p.api(`/v1/escalation-policies/${policy.uuid}`)).status, 404);
  await tab.context().close();
});

test('no console errors', () => assert.deepEqual(problems, []));
