import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../support/browser.ts';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { httpReceiver } from '../support/receivers.ts';
import { httpTarget, type HttpTarget } from '../support/targets.ts';
import { waitFor } from '../support/process.ts';

// Issue 32's must-show, in headless Chromium: a person signs in, adds an ntfy integration pointing
// at a local receiver, sends a test that reaches it (and reads the answer on the page), builds a
// two-step escalation policy, attaches it to three monitors at once, and the next outage of one of
// them alerts through the integration. Once with JavaScript on (htmx), once with it off (forms post
// and redirect). No YAML, no restart.
const RECHECK_MS = 3000;
const PW = 'correct horse battery';
const system = { type: 'system' as const, id: 'test', name: 'test' };
let browser: Browser;
const problems: string[] = [];

before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser.close();
});

for (const js of [true, false]) {
  describe(`alerting set up in the console, JavaScript ${js ? 'on' : 'off'}`, () => {
    let p: TestPharos;
    let rx: Awaited<ReturnType<typeof httpReceiver>>;
    const targets: HttpTarget[] = [];
    const monitors: Array<{ uuid: string; name: string }> = [];
    let tab: Page;

    before(async () => {
      rx = await httpReceiver();
      p = await startTestPharos();
      await p.core.accounts.create({ email: 'ada@example.com', name: 'Ada', role: 'admin', password: PW }, system);
      for (const name of ['Shop', 'Blog', 'Search', 'Wiki']) {
        const t = await httpTarget(200);
        targets.push(t);
        const res = await p.api('/v1/monitors', { method: 'POST', json: { name, url: t.url, check_frequency: 10 } });
        assert.equal(res.status, 201, await res.clone().text());
        monitors.push({ uuid: (await res.json()).uuid, name });
      }
      const ctx = await browser.newContext({ viewport: { width: 1100, height: 900 }, javaScriptEnabled: js });
      tab = await ctx.newPage();
      tab.on('console', (m) => {
        if (m.type() === 'error') problems.push(`${tab.url()}: ${m.text()}`);
      });
      tab.on('pageerror', (e) => problems.push(e.message));
    });
    after(async () => {
      await tab?.context().close();
      for (const t of targets) await t.stop();
      await rx?.close();
      await p?.cleanup();
    });

    const nextCheck = async (uuid: string) => {
      const due = p.scheduler.nextDueAt(p.store.monitors.get(uuid)!.id)!;
      await p.advance(due - p.clock.now());
      await p.core.checks.flush();
    };

    test('sign in; add an ntfy integration through its generated form', async () => {
      await tab.goto(`${p.url}/login`);
      await tab.fill('input[name=email]', 'ada@example.com');
      await tab.fill('input[name=password]', PW);
      await tab.click('button[type=submit]');
      await tab.waitForURL(`${p.url}/`);
      if (js) {
        await tab.waitForFunction('window.htmx !== undefined');
        // From here on htmx loads every link and form without a full reload: the marker survives.
        await tab.evaluate('window.marker = 42');
      }
      await tab.click('nav >> text=Integrations');
      await tab.locator('h1:has-text("Integrations")').waitFor();
      await tab.click('#add-integration');
      await tab.selectOption('select[name=kind]', 'ntfy');
      await tab.click('button:has-text("Next")');
      await tab.locator('h1:has-text("Add ntfy integration")').waitFor();
      assert.equal(await tab.inputValue('input[name="settings.server"]'), 'https://ntfy.sh', "the schema's default");
      assert.equal(await tab.getAttribute('input[name="settings.token"]', 'type'), 'password');
      await tab.fill('input[name=name]', 'phone');
      await tab.fill('input[name="settings.server"]', rx.url);
      await tab.fill('input[name="settings.topic"]', 'pharos-alerts');
      await tab.fill('input[name="settings.token"]', 'tk-browser-secret');
      await tab.click('button:has-text("Add integration")');
      await tab.locator('#notice:has-text("Integration added")').waitFor();
      await tab.locator('h1:has-text("phone")').waitFor();
      assert.equal(await tab.inputValue('input[name="settings.token"]'), '***', 'the stored token reads ***');
    });

    test("send a test: it reaches the receiver and the provider's answer shows on the page", async () => {
      await tab.click('button:has-text("Send test")');
      await tab.locator('#test-result').waitFor();
      const shown = await tab.locator('#test-result').innerText();
      assert.match(shown, /Test delivered to phone\./);
      assert.match(shown, /the provider answered HTTP 200/);
      const got = rx.received.filter((r) => r.path === '/');
      assert.equal(got.length, 1);
      assert.equal(JSON.parse(got[0]!.body).topic, 'pharos-alerts');
      assert.equal(got[0]!.headers.authorization, 'Bearer tk-browser-secret');
    });

    test('build a two-step policy and attach it to three monitors at once', async () => {
      await tab.click('nav >> text=Escalation policies');
      await tab.locator('h1:has-text("Escalation policies")').waitFor();
      await tab.click('#new-policy');
      await tab.locator('h1:has-text("New escalation policy")').waitFor();
      await tab.fill('input[name=name]', 'Website on-call');
      await tab.fill('input[name=step_0_delay]', '0');
      await tab.locator('[data-step="0"] label:has-text("phone") input').check();
      await tab.click('#add-step');
      await tab.locator('input[name=step_1_delay]').waitFor();
      assert.equal(await tab.locator('[data-step="0"] label:has-text("phone") input').isChecked(), true, 'step 1 kept its choice');
      await tab.fill('input[name=step_1_delay]', '15');
      await tab.locator('[data-step="1"] label:has-text("phone") input').check();
      await tab.click('button:has-text("Create policy")');
      await tab.locator('#notice:has-text("Escalation policy created")').waitFor();
      for (const m of monitors.slice(0, 3)) await tab.locator(`#attach-monitors input[value="${m.uuid}"]`).check();
      await tab.click('#attach-form button:has-text("Attach")');
      await tab.locator('#notice:has-text("Attached to 3 monitors and 0 healthchecks.")').waitFor();
      if (js) assert.equal(await tab.evaluate('window.marker'), 42, 'htmx carried every page and form of the way');
      const policy = (await p.core.escalationPolicies.list()).find((x) => x.name === 'Website on-call')!;
      assert.deepEqual(
        policy.steps.map((s) => s.delayMinutes),
        [0, 15],
      );
      for (const [i, m] of monitors.entries()) assert.equal((await p.core.monitors.get(m.uuid)).escalationPolicyUuid, i < 3 ? policy.uuid : null, m.name);
    });

    test('the next outage of one of them alerts through the ntfy integration', async () => {
      const shop = monitors[1]!;
      targets[1]!.respond(500, 'boom');
      await nextCheck(shop.uuid);
      await p.advance(RECHECK_MS);
      await p.advance(RECHECK_MS);
      const alert = await waitFor('the ntfy alert', async () => {
        await p.advance(0);
        return rx.received.map((r) => JSON.parse(r.body) as { topic: string; title: string; message: string; priority: number }).find((b) => b.title.includes(shop.name) && !/test/i.test(b.title));
      });
      assert.equal(alert.topic, 'pharos-alerts');
      assert.equal(alert.priority, 4, 'an alert goes out at the configured priority');
    });
  });
}

test('no CSP violation or script error in any tab', () => {
  assert.deepEqual(problems.filter((m) => !/status of 4\d\d \((Bad Request|Unauthorized|Forbidden|Conflict)\)/.test(m)), []);
});
