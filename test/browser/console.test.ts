import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser } from '../support/browser.ts';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { httpTarget, type HttpTarget } from '../support/targets.ts';

// The console in real headless Chromium (issue 16) against a real Pharos on a manual clock with a
// real loopback target: the clock is moved by the test, the browser sees the result live (SSE).
// Set PHAROS_SCREENSHOTS=<dir> to save the README screenshots (docs/screenshots/console-*.png).
const RECHECK_MS = 3000;
const PW = 'correct horse battery';
const shots = process.env.PHAROS_SCREENSHOTS;
let browser: Browser;
let p: TestPharos;
let target: HttpTarget;
const problems: string[] = [];
before(async () => {
  browser = await launchBrowser();
  p = await startTestPharos();
  target = await httpTarget(200);
});
after(async () => {
  await browser.close();
  await target.stop();
  await p.cleanup();
});

async function context(options: Parameters<Browser['newContext']>[0] = {}): Promise<{ ctx: BrowserContext; tab: Page }> {
  const ctx = await browser.newContext({ viewport: { width: 1100, height: 800 }, colorScheme: 'light', ...options });
  const tab = await ctx.newPage();
  tab.on('console', (m) => {
    if (m.type() === 'error') problems.push(`${tab.url()}: ${m.text()}`);
  });
  tab.on('pageerror', (e) => problems.push(e.message));
  return { ctx, tab };
}
async function signIn(tab: Page, email: string, password: string) {
  await tab.goto(`${p.url}/login`);
  await tab.fill('input[name=email]', email);
  await tab.fill('input[name=password]', password);
  await tab.click('button[type=submit]');
  await tab.waitForURL(`${p.url}/`);
}
const nextCheck = async (uuid: string) => {
  const due = p.scheduler.nextDueAt(p.store.monitors.get(uuid)!.id)!;
  await p.advance(due - p.clock.now());
  await p.core.checks.flush();
};

describe('the console in Chromium', () => {
  let admin: Page;
  let monitorUuid = '';

  test('the setup link creates the first admin and is refused a second time', async () => {
    const { tab } = await context();
    await tab.goto(`${p.url}/setup/${p.setupToken}`);
    await tab.fill('input[name=email]', 'ada@example.com');
    await tab.fill('input[name=name]', 'Ada');
    await tab.fill('input[name=password]', PW);
    await tab.click('button[type=submit]');
    await tab.waitForURL(`${p.url}/`);
    assert.match(await tab.locator('header .me').innerText(), /Ada · admin/);
    const { tab: other } = await context();
    const res = await other.goto(`${p.url}/setup/${p.setupToken}`);
    assert.equal(res?.status(), 403);
    assert.match(await other.locator('h1').innerText(), /Setup link not valid/);
  });

  test('sign in; create an HTTP monitor through the form; the target stops and the overview turns red live', async () => {
    ({ tab: admin } = await context());
    await signIn(admin, 'ada@example.com', PW);
    await admin.click('text=New monitor');
    await admin.waitForURL(`${p.url}/monitors/new`);
    // With JavaScript only the chosen protocol's fieldset shows (all of them without).
    await admin.locator('fieldset[data-protocol=dns]').waitFor({ state: 'hidden' });
    assert.equal(await admin.locator('fieldset[data-protocol=http]').isVisible(), true);
    await admin.selectOption('select[name=protocol]', 'dns');
    await admin.locator('fieldset[data-protocol=dns]').waitFor({ state: 'visible' });
    assert.equal(await admin.locator('fieldset[data-protocol=http]').isVisible(), false);
    await admin.selectOption('select[name=protocol]', 'http');
    await admin.fill('input[name=name]', 'Shop');
    await admin.fill('input[name=url]', target.url);
    await admin.selectOption('select[name=check_frequency]', '10');
    await admin.click('button:has-text("Create monitor")');
    await admin.waitForURL(/\/monitors\/mon_/);
    monitorUuid = /mon_[0-9A-Za-z]{22}/.exec(admin.url())![0];
    await nextCheck(monitorUuid);
    await admin.goto(`${p.url}/`);
    const row = admin.locator(`#row-${monitorUuid}`);
    assert.equal(await row.getAttribute('data-status'), 'up');
    await admin.waitForFunction('window.htmx !== undefined');
    // The page is not reloaded from here on: the row changes through the event stream.
    await admin.evaluate('window.marker = 42');
    await target.stop();
    await nextCheck(monitorUuid);
    await p.advance(RECHECK_MS);
    await p.advance(RECHECK_MS);
    await admin.locator(`#row-${monitorUuid}[data-status="down"]`).waitFor({ timeout: 10_000 });
    assert.equal(await admin.evaluate('window.marker'), 42, 'no reload: the change came over SSE');
    assert.equal(await admin.locator('[data-count=down] b').innerText(), '1');
    if (shots) await admin.screenshot({ path: join(shots, 'console-overview.png'), fullPage: true });
    await admin.click(`#row-${monitorUuid} a`);
    await admin.waitForURL(`${p.url}/monitors/${monitorUuid}`);
    assert.equal(await admin.locator('#monitor-status').innerText(), 'down');
    assert.equal(await admin.locator('#checks tr[data-ok=false]').count(), 3, 'the failed check and its two confirmations');
    if (shots) await admin.screenshot({ path: join(shots, 'console-monitor.png'), fullPage: true });
    await admin.click('nav >> text=Outages');
    await admin.waitForURL(`${p.url}/outages`);
    assert.match(await admin.locator('#ongoing').innerText(), /INC-1 · Shop[\s\S]*Connection refused/);
    if (shots) await admin.screenshot({ path: join(shots, 'console-inbox.png'), fullPage: true });
  });

  test('acknowledge from a 390×844 phone', async () => {
    const { tab } = await context({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    await signIn(tab, 'ada@example.com', PW);
    await tab.goto(`${p.url}/outages`);
    if (shots) await tab.screenshot({ path: join(shots, 'console-phone-inbox.png') });
    const width = (await tab.evaluate('document.documentElement.scrollWidth')) as number;
    assert.ok(width <= 390, `no sideways scrolling on a phone (${width} px)`);
    await tab.locator('#ongoing a').first().tap();
    await tab.waitForURL(/\/outages\/outage_/);
    await tab.fill('input[name=message]', 'looking');
    await tab.locator('button[value=acknowledge]').tap();
    await tab.locator('#outage-state:has-text("acknowledged")').waitFor();
    // The state can come over the live stream before the answer to the post renders the timeline.
    await tab.locator('#timeline', { hasText: /acknowledged by Ada[\s\S]*looking/ }).waitFor({ timeout: 10_000 });
    // The overview tab of the admin got the change live too.
    await admin.locator('#ongoing tr[data-state=acknowledged]').waitFor({ timeout: 10_000 });
  });

  test('create a healthcheck and copy its ping URL', async () => {
    await admin.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: p.url });
    await admin.goto(`${p.url}/healthchecks/new`);
    await admin.fill('input[name=name]', 'Nightly backup');
    await admin.click('button:has-text("Create healthcheck")');
    await admin.waitForURL(/\/healthchecks\/tok_/);
    const url = (await admin.locator('#ping-url').innerText()).trim();
    assert.match(url, /^http:\/\/localhost:8080\/ping\/tok_/);
    await admin.click('#copy-ping-url');
    await admin.locator('#copy-ping-url[data-copied=true]').waitFor();
    assert.equal(await admin.evaluate('navigator.clipboard.readText()'), url);
  });

  test('the integrations page lists what the API created, with the policy that alerts it', async () => {
    const made = await p.api('/v1/integrations', { method: 'POST', json: { name: 'Ops webhook', type: 'webhook', settings: { url: 'https://hooks.example.com/pharos' } } });
    assert.equal(made.status, 201);
    const policy = await p.api('/v1/escalation-policies', { method: 'POST', json: { name: 'Business hours', steps: [{ delay_minutes: 0, targets: [{ type: 'integration', uuid: (await made.json()).uuid }] }] } });
    assert.equal(policy.status, 201, await policy.text());
    await admin.goto(`${p.url}/integrations`);
    assert.match(await admin.locator('main').innerText(), /Ops webhook/);
    if (shots) await admin.screenshot({ path: join(shots, 'console-integrations.png'), fullPage: true });
  });

  test('create a status page with two sections and open it', async () => {
    await admin.goto(`${p.url}/statuspages`);
    await admin.fill('input[name=name]', 'Acme status');
    await admin.fill('input[name=subdomain]', 'acme');
    await admin.fill('input[name=section_0_name]', 'Website');
    // Each section has a searchable picker (issue 33 point 5): typed, then the match added.
    await admin.locator('#pick-section_0_services input[type=search]').pressSequentially('Shop');
    await admin.locator('#pick-section_0_services [data-pick]', { hasText: 'Shop' }).click();
    await admin.fill('input[name=section_1_name]', 'Jobs');
    await admin.locator('#pick-section_1_services input[type=search]').pressSequentially('Nightly');
    await admin.locator('#pick-section_1_services [data-pick]', { hasText: 'Nightly backup' }).click();
    await admin.click('button:has-text("Create status page")');
    await admin.waitForURL(/\/statuspages\/[a-z]+_/);
    // Up/down buttons order the sections (a plain form each).
    await admin.click('[data-section-name="Jobs"] button[title="↑ move section up"]');
    await admin.locator('[data-section-name]').first().getByText('Jobs').waitFor();
    await admin.click('[data-section-name="Jobs"] button[title="↓ move section down"]');
    await admin.locator('[data-section-name]').first().getByText('Website').waitFor();
    await admin.click('text=View page');
    await admin.waitForURL(`${p.url}/status/acme`);
    assert.deepEqual(await admin.locator('section.section > h2').allInnerTexts(), ['Website', 'Jobs']);
  });

  test('a viewer sees everything and has no button to change anything', async () => {
    await p.core.accounts.create({ email: 'vic@example.com', role: 'viewer', password: 'viewer password' }, { type: 'system', id: 'test', name: 'test' });
    const { tab } = await context();
    await signIn(tab, 'vic@example.com', 'viewer password');
    assert.equal(await tab.locator(`#row-${monitorUuid}`).count(), 1);
    assert.equal(await tab.locator('text=New monitor').count(), 0);
    await tab.goto(`${p.url}/monitors/${monitorUuid}`);
    assert.equal(await tab.locator('#monitor-actions').count(), 0);
    await tab.goto(`${p.url}/outages`);
    await tab.locator('#ongoing a').first().click();
    await tab.waitForURL(/\/outages\/outage_/);
    assert.equal(await tab.locator('#outage-actions').count(), 0);
    const status = await tab.evaluate(`fetch(${JSON.stringify(tab.url() + '/act')}, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'action=resolve' }).then((r) => r.status)`);
    assert.equal(status, 403);
  });

  test('sign out everywhere ends the session of another browser context', async () => {
    const one = await context();
    const two = await context();
    await signIn(one.tab, 'ada@example.com', PW);
    await signIn(two.tab, 'ada@example.com', PW);
    await one.tab.goto(`${p.url}/settings`);
    await one.tab.click('button:has-text("Sign out everywhere")');
    await one.tab.waitForURL(/\/login/);
    await two.tab.goto(`${p.url}/outages`);
    await two.tab.waitForURL(/\/login/);
    assert.match(await two.tab.locator('h1').innerText(), /Sign in/);
  });

  test('with JavaScript off: sign in, resolve the outage with a message, create a monitor (forms post and redirect)', async () => {
    const { tab } = await context({ javaScriptEnabled: false });
    await signIn(tab, 'ada@example.com', PW);
    assert.equal(await tab.locator('noscript').count() >= 0, true);
    await tab.goto(`${p.url}/outages`);
    await tab.locator('#ongoing a').first().click();
    await tab.fill('input[name=message]', 'fixed by restart');
    await tab.click('button[value=resolve]');
    await tab.waitForURL(/\/outages\/outage_/);
    assert.equal(await tab.locator('#outage-state').innerText(), 'resolved');
    // Incident updates: one tab per language, switched by CSS alone.
    const inc = await p.api('/v3/incidents', { method: 'POST', json: { title: { en: 'Slow' }, type: 'incident', updates: [{ text: { en: 'Looking into it', fr: 'Nous enquêtons' }, type: 'investigating' }] } });
    assert.equal(inc.status, 201);
    await tab.goto(`${p.url}/incidents`);
    assert.deepEqual([await tab.locator('.tabs [data-lang=en]').isVisible(), await tab.locator('.tabs [data-lang=fr]').isVisible()], [true, false]);
    await tab.click('.tabs label:has-text("fr")');
    assert.deepEqual([await tab.locator('.tabs [data-lang=en]').isVisible(), await tab.locator('.tabs [data-lang=fr]').isVisible()], [false, true]);
    await tab.goto(`${p.url}/monitors/new`);
    assert.equal(await tab.locator('fieldset[data-protocol=dns]').isVisible(), true, "every protocol's fieldset shows without JavaScript");
    await tab.fill('input[name=name]', 'Broken');
    await tab.fill('input[name=url]', target.url);
    await tab.fill('input[name="http.expected_status_code"]', '999');
    await tab.click('button:has-text("Create monitor")');
    assert.match(await tab.locator('[data-error-for=expected_status_code]').innerText(), /must be a status code such as 200, 2xx/);
    await tab.fill('input[name="http.expected_status_code"]', '2xx');
    await tab.click('button:has-text("Create monitor")');
    await tab.waitForURL(/\/monitors\/mon_/);
    assert.equal(await tab.locator('h1').innerText().then((t) => t.startsWith('Broken')), true);
  });

  test('no CSP violation or script error in any tab', () => {
    assert.deepEqual(problems.filter((m) => !/status of 4\d\d \((Bad Request|Unauthorized|Forbidden)\)/.test(m)), []);
  });
});
