import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../support/browser.ts';
import { statusFixture, type StatusFixture } from '../support/status-fixture.ts';

// Public status pages in real headless Chromium (Debian's, driven by playwright-core) against a
// real Pharos with real checks on loopback targets. Set PHAROS_SCREENSHOTS=<dir> to save the
// light and dark screenshots shown in the README (docs/screenshots/).
let browser: Browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser.close();
});
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});
async function setup(page: Record<string, unknown> = {}): Promise<StatusFixture> {
  const f = await statusFixture(page);
  cleanups.push(() => f.close());
  return f;
}
/** A new tab; CSP violations and script errors are collected in `problems`. */
async function open(options: Parameters<Browser['newContext']>[0] = {}): Promise<{ tab: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1000, height: 900 }, ...options });
  cleanups.push(() => context.close());
  const tab = await context.newPage();
  const problems: string[] = [];
  tab.on('console', (m) => {
    if (m.type() === 'error' && !m.text().includes('favicon')) problems.push(m.text());
  });
  tab.on('pageerror', (e) => problems.push(e.message));
  return { tab, problems };
}
const shots = process.env.PHAROS_SCREENSHOTS;
const statusOf = (tab: Page, name: string) => tab.locator(`[data-service="${name}"] .status`).first().getAttribute('data-status');

describe('status pages in Chromium', () => {
  test('two sections, a group and five services: statuses, 90-day bars and graphs, with JavaScript off', async () => {
    const f = await setup();
    const { tab, problems } = await open({ javaScriptEnabled: false, colorScheme: 'light' });
    await tab.goto(`${f.p.url}/status/acme`);
    assert.equal(await tab.locator('.banner').getAttribute('data-overall'), 'partial_outage');
    assert.equal((await tab.locator('.banner').innerText()).trim(), 'Partial outage');
    assert.deepEqual(await tab.locator('section.section > h2').allInnerTexts(), ['Website', 'Partners']);
    const expected: Record<string, string> = { Web: 'operational', Backend: 'major_outage', API: 'major_outage', 'Nightly backup': 'unknown', 'Payments provider': 'degraded', Search: 'operational' };
    for (const [name, status] of Object.entries(expected)) assert.equal(await statusOf(tab, name), status, name);
    assert.equal(await tab.locator('[data-service="Web"] .bar').count(), 90);
    assert.equal(await tab.locator('[data-service="API"] .bar.l-major').count(), 1, 'today is red for the failing API');
    assert.match((await tab.locator('[data-service="API"] .bar').last().getAttribute('title')) ?? '', /Jan 1, 2026 · [0-9.]+ % · Down for/);
    assert.equal(await tab.locator('[data-service="Payments provider"] .bar').count(), 0);
    const line = await tab.locator('[data-service="Web"] svg path.line').getAttribute('d');
    assert.match(line ?? '', /^M[\d.]+,[\d.]+L/, 'a response-time line');
    const box = await tab.locator('[data-service="Web"] .graph svg').boundingBox();
    assert.ok(box && box.width > 500 && box.height > 40, 'the graph is drawn at full width');
    if (shots) await tab.screenshot({ path: join(shots, 'status-light.png'), fullPage: true });
    // The group folds without JavaScript (<details>): open because a child is down; a click closes it.
    const group = tab.locator('details.group');
    assert.equal(await group.getAttribute('open'), '');
    await group.locator('summary').click();
    assert.equal(await group.getAttribute('open'), null);
    assert.equal(await tab.locator('[data-service="API"]').isVisible(), false);
    assert.equal(await tab.evaluate('document.fonts.ready.then(() => document.fonts.check("16px Inter"))'), true, 'Inter loaded from Pharos itself');
    assert.deepEqual(problems, [], 'no CSP violation or script error');
  });

  test('theme system follows prefers-color-scheme; theme dark is always dark', async () => {
    const f = await setup();
    const bg = (tab: Page) => tab.evaluate('getComputedStyle(document.body).backgroundColor');
    const light = await open({ colorScheme: 'light' });
    await light.tab.goto(`${f.p.url}/status/acme`);
    assert.equal(await bg(light.tab), 'rgb(246, 247, 249)');
    const dark = await open({ colorScheme: 'dark' });
    await dark.tab.goto(`${f.p.url}/status/acme`);
    assert.equal(await bg(dark.tab), 'rgb(15, 18, 23)');
    assert.deepEqual(dark.problems, []);
    if (shots) await dark.tab.screenshot({ path: join(shots, 'status-dark.png'), fullPage: true });
    await f.p.api(`/v2/statuspages/${f.page.uuid}`, { method: 'PUT', json: { name: 'Acme Status', theme: 'dark', accent_color: '#ff0066' } });
    await light.tab.reload();
    assert.equal(await bg(light.tab), 'rgb(15, 18, 23)');
    assert.equal(await light.tab.evaluate("getComputedStyle(document.documentElement).getPropertyValue('--accent').trim()"), '#ff0066', 'the accent colour');
    // As link text the accent is made readable on the dark card (AA, issue 33 point 11): #ff0066 is 4.48:1 there, mixed toward white.
    assert.equal(await light.tab.evaluate("getComputedStyle(document.querySelector('.top-links a')).color"), 'rgb(255, 26, 117)', 'links: the accent mixed toward white');
  });

  test('the language switcher changes the UI strings and keeps the language on links', async () => {
    const f = await setup();
    const { tab } = await open();
    await tab.goto(`${f.p.url}/status/acme`);
    assert.equal(await tab.locator('html').getAttribute('lang'), 'en');
    await tab.getByRole('link', { name: 'Deutsch' }).click();
    await tab.waitForURL(/lang=de/);
    assert.equal(await tab.locator('html').getAttribute('lang'), 'de');
    assert.equal((await tab.locator('.banner').innerText()).trim(), 'Teilweiser Ausfall');
    assert.equal((await tab.locator('[data-service="Web"] .status').innerText()).trim(), 'Betriebsbereit');
    await tab.locator('.top-links a').first().click();
    await tab.waitForURL(/\/history\?lang=de/);
    await tab.getByRole('link', { name: 'English' }).click();
    await tab.waitForURL(/\/history$/);
    assert.equal(await tab.locator('html').getAttribute('lang'), 'en');
  });

  test('the password wall holds, then opens with the password and stays open', async () => {
    const f = await setup({ password: 'correct horse battery', authentication: { password_protection: true } });
    const { tab, problems } = await open();
    await tab.goto(`${f.p.url}/status/acme/history`);
    assert.equal(await tab.locator('input[type=password]').count(), 1);
    assert.ok(!(await tab.content()).includes('Acme'));
    await tab.fill('input[type=password]', 'wrong password');
    await tab.click('button[type=submit]');
    assert.match(await tab.locator('[role=alert]').innerText(), /Wrong password/);
    await tab.fill('input[type=password]', 'correct horse battery');
    await tab.click('button[type=submit]');
    await tab.waitForURL(/\/status\/acme\/history$/);
    assert.match(await tab.locator('h1').innerText(), /Acme Status/);
    await tab.goto(`${f.p.url}/status/acme`);
    assert.equal(await tab.locator('.banner').getAttribute('data-overall'), 'partial_outage');
    assert.deepEqual(problems.filter((p) => !/401/.test(p)), []);
  });

  test('a subscriber confirms by following the link from the mail the SMTP server caught', async () => {
    const f = await setup();
    const { tab } = await open();
    await tab.goto(`${f.p.url}/status/acme`);
    await tab.getByRole('link', { name: 'Subscribe to updates' }).click();
    await tab.fill('input[name=target]', 'reader@example.com');
    await tab.click('button[type=submit]');
    assert.match(await tab.locator('[role=status]').innerText(), /Check your inbox/);
    await f.p.advance(0);
    assert.equal(f.smtp.mails.length, 1);
    const raw = f.smtp.mails[0]!.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
    const link = /http:\/\/localhost:8080(\/status\/acme\/subscribe\/confirm\?s=[^\s"<&]+&t=[A-Za-z0-9_-]+)/.exec(raw)?.[1];
    assert.ok(link, raw);
    await tab.goto(f.p.url + link);
    await tab.getByRole('button', { name: 'Confirm subscription' }).click();
    assert.match(await tab.locator('[role=status]').innerText(), /subscription is confirmed/);
    const s = new URL(link, f.p.url).searchParams.get('s')!;
    assert.ok(f.p.store.subscribers.get(s)?.confirmedAt, 'stored as confirmed');
  });
});
