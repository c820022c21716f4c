import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, BrowserContext } from 'playwright-core';
import { launchBrowser } from '../support/browser.ts';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { setupAdmin } from '../support/console.ts';
import { httpTarget, type HttpTarget } from '../support/targets.ts';

// Issue 33 point 11: axe-core over every console and public page, light and dark, desktop and
// phone: no serious or critical violation. The console is walked from its navigation (and every
// page's links, one page per path shape), so a page added later is checked without a change here.
// On failure the rule ids, their impact and the elements (CSS targets) are printed per page.
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const MIN = 60_000;
const PW = 'correct horse battery';

const VARIANTS = [
  { name: 'light desktop', colorScheme: 'light', viewport: { width: 1366, height: 900 } },
  { name: 'dark desktop', colorScheme: 'dark', viewport: { width: 1366, height: 900 } },
  { name: 'light phone', colorScheme: 'light', viewport: { width: 390, height: 844 } },
  { name: 'dark phone', colorScheme: 'dark', viewport: { width: 390, height: 844 } },
] as const;

let browser: Browser;
let p: TestPharos;
let ok: HttpTarget;
let failing: HttpTarget;
let adminCookie = '';

before(async () => {
  browser = await launchBrowser();
  p = await startTestPharos();
  ok = await httpTarget(200);
  failing = await httpTarget(503);
});
after(async () => {
  await browser?.close();
  await p?.cleanup();
  await Promise.all([ok?.stop(), failing?.stop()]);
});

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown[] }>;
}

/**
 * Loads `path` once and runs axe in each variant (the viewport and the preferred colour scheme
 * changed in place: one load and one injection per page); returns the serious and critical
 * violations as printable lines (empty: none) and the page's links.
 */
async function audit(ctx: BrowserContext, path: string): Promise<{ problems: string[]; hrefs: string[] }> {
  const tab = await ctx.newPage();
  try {
    const res = await tab.goto(p.url + path, { waitUntil: 'load' });
    if (!res || res.status() >= 500) return { problems: [`${path}: HTTP ${res?.status()}`], hrefs: [] };
    const hrefs = await tab.locator('a[href]').evaluateAll((as) => as.map((a) => a.getAttribute('href') ?? ''));
    await tab.evaluate(AXE_SOURCE);
    const problems: string[] = [];
    for (const v of VARIANTS) {
      await tab.setViewportSize(v.viewport);
      await tab.emulateMedia({ colorScheme: v.colorScheme });
      const violations = (await tab.evaluate(() => (globalThis as unknown as { axe: { run(o: object): Promise<{ violations: unknown[] }> } }).axe.run({ resultTypes: ['violations'] }).then((r) => r.violations))) as Violation[];
      for (const x of violations) {
        if (x.impact !== 'serious' && x.impact !== 'critical') continue;
        const targets = x.nodes.map((n) => n.target.join(' '));
        problems.push(`[${v.name}] ${path}: ${x.id} (${x.impact}: ${x.help}) on ${targets.slice(0, 8).join(' | ')}${targets.length > 8 ? ` … ${targets.length} elements` : ''}`);
      }
    }
    return { problems, hrefs };
  } finally {
    await tab.close();
  }
}

/** `/monitors/mon_abc/edit` → `/monitors/:id/edit`: one page per shape of path is enough. */
const shapeOf = (path: string) => path.replace(/\/[A-Za-z]+_[0-9A-Za-z_-]{6,}|\/\d+(?=\/|$)|\/[0-9a-f-]{20,}/g, '/:id');
const SKIP = /^\/(logout|events|_console|_pharos|status\/|ping\/|v\d\/|api\/|docs|openapi|metrics|healthz)|\.(svg|json|atom|css|js|png)$/;

/**
 * Audits every console page reachable from the overview (its navigation and every page's links)
 * within three clicks (nav, list, detail, its forms), one page per path shape; returns the problems and the pages visited.
 */
async function auditConsole(ctx: BrowserContext): Promise<{ problems: string[]; pages: string[] }> {
  const seen = new Map<string, string>();
  const problems: string[] = [];
  let frontier = ['/'];
  for (let depth = 0; depth < 4 && frontier.length > 0; depth++) {
    const next: string[] = [];
    for (const path of frontier) {
      if (seen.has(shapeOf(path))) continue;
      seen.set(shapeOf(path), path);
      const found = await audit(ctx, path);
      problems.push(...found.problems);
      for (const h of found.hrefs) {
        if (!h.startsWith('/') || h.startsWith('//')) continue;
        const clean = h.split(/[?#]/)[0]!;
        if (!SKIP.test(clean) && !seen.has(shapeOf(clean))) next.push(clean);
      }
    }
    frontier = [...new Set(next)];
  }
  return { problems, pages: [...seen.values()] };
}

describe('axe-core over every page', () => {
  test('before anyone can sign in: the first-run page at / and /login, and the setup link page', async () => {
    const ctx = await browser.newContext({ bypassCSP: true });
    const problems: string[] = [];
    for (const path of ['/', '/login', `/setup/${p.setupToken}`]) problems.push(...(await audit(ctx, path)).problems);
    await ctx.close();
    assert.deepEqual(problems, [], `serious or critical axe violations:\n${problems.join('\n')}`);
  });

  test('seed: an admin, monitors up and down (tags, a group), a healthcheck down, outages, an incident, maintenance (one-off and recurring), an integration, a policy, an on-call schedule, two status pages', async () => {
    const admin = await setupAdmin(p, 'ada@example.com', PW);
    adminCookie = admin.cookie!;
    const post = async (path: string, json: unknown) => {
      const res = await p.api(path, { method: 'POST', json });
      assert.ok(res.status === 200 || res.status === 201, `${path}: ${res.status} ${await res.clone().text()}`);
      return res.json();
    };
    const web = (await post('/v1/monitors', { name: 'Web', url: `${ok.url}/web`, check_frequency: 60, tags: ['prod', 'env:eu'], group: 'Shop' })).uuid as string;
    const api = (await post('/v1/monitors', { name: 'API', url: `${failing.url}/api`, check_frequency: 60 })).uuid as string;
    await post('/v1/monitors', { name: 'Paused thing', url: `${ok.url}/paused`, check_frequency: 60, paused: true });
    const hc = (await post('/v1/healthchecks', { name: 'Nightly backup', period_value: 1, period_type: 'minutes', grace_period_value: 1, grace_period_type: 'minutes' })).healthcheck;
    const hook = await post('/v1/integrations', { name: 'hook', type: 'webhook', settings: { url: 'http://127.0.0.1:9/hook' } });
    await post('/v1/escalation-policies', { name: 'Night shift', steps: [{ delay_minutes: 0, targets: [{ type: 'integration', uuid: hook.uuid }] }] });
    const comp = await post('/v1/components', { name: 'Card processor', description: 'Supplier', status: 'degraded' });
    await p.advance(5 * MIN);
    await post('/v2/outages', { description: 'Checkout broken', severity: 'major' });
    await post('/v3/incidents', { title: { en: 'Payments failing' }, type: 'outage', affectedComponents: [api, comp.uuid], updates: [{ text: { en: 'We are looking into it' }, type: 'investigating' }] });
    const now = p.clock.now();
    await post('/v1/maintenance-windows', { name: 'db upgrade', start_date: new Date(now + 60 * MIN).toISOString(), end_date: new Date(now + 90 * MIN).toISOString(), monitors: [web] });
    await post('/v1/maintenance-windows', { name: 'Sunday patching', monitors: [web], timezone: 'Europe/Berlin', recurrence: { strategy: 'weekly', start_time: '02:00', duration_minutes: 60, days_of_week: [0] } });
    const ann = (await p.core.accounts.create({ email: 'ann@example.com', name: 'Ann', role: 'editor', password: 'a long enough password 1' }, { type: 'system', id: 'test', name: 'test' })).uuid;
    await post('/v1/on-call-schedules', { name: 'Primary', team: 'SRE', time_zone: 'Europe/Berlin', layers: [{ name: 'Weekly', users: [ann], rotation: { type: 'weekly', handoff_time: '09:00', start_date: '2026-06-01' } }] });
    const sections = [{ name: 'Website', services: [{ monitor_uuid: web }, { monitor_uuid: api }, { monitor_uuid: hc.publicUuid ?? hc.uuid }, { monitor_uuid: comp.uuid }] }];
    await post('/v2/statuspages', { name: 'Acme Status', subdomain: 'acme', description: 'Live status of Acme services', sections });
    await post('/v2/statuspages', { name: 'Internal', subdomain: 'internal', sections, password: PW, authentication: { password_protection: true } });
    await p.advance(2 * MIN);
    const outages = (await (await p.api('/v2/outages')).json()).outages as unknown[];
    assert.ok(outages.length >= 2, 'the failing monitor and the manual outage are outages');
  });

  test('every console and public page, light and dark, desktop and phone: no serious or critical violation', async () => {
    const ctx = await browser.newContext({ bypassCSP: true });
    const problems: string[] = [];
    for (const path of ['/status/acme', '/status/acme/history', '/status/acme/subscribe', '/status/internal', '/login']) problems.push(...(await audit(ctx, path)).problems);
    const [name, value] = adminCookie.split('=') as [string, string];
    await ctx.addCookies([{ name, value, url: p.url }]);
    const walk = await auditConsole(ctx);
    problems.push(...walk.problems);
    await ctx.close();
    if (process.env.AXE_PAGES) console.log(walk.pages.join('\n'));
    assert.ok(walk.pages.length >= 25, `the walk reached ${walk.pages.length} pages: ${walk.pages.join(' ')}`);
    assert.deepEqual(problems, [], `serious or critical axe violations (${walk.pages.length} console pages: ${walk.pages.join(' ')}):\n${problems.join('\n')}`);
  });
});
