/**
 * Makes the console screenshots in this folder (run by hand, not part of the suite):
 *
 *   node --import tsx docs/screenshots/take.ts [out-dir]   (default: docs/screenshots)
 *
 * A real Pharos on a manual clock with real loopback targets: eight HTTP monitors checked every
 * 30 s for 40 minutes of clock time (one target fails for a while, one is slow, one stays down), an
 * integration and a policy, then Debian's Chromium (playwright-core) signs in and takes the overview
 * with its heartbeat bars, a monitor page, the integrations page and the outages inbox on a phone.
 */
import { join, resolve } from 'node:path';
import { launchBrowser } from '../../test/support/browser.ts';
import { startTestPharos } from '../../test/support/pharos.ts';
import { httpTarget, type HttpTarget } from '../../test/support/targets.ts';

const out = resolve(process.argv[2] ?? 'docs/screenshots');
const PW = 'correct horse battery';
const p = await startTestPharos();
const targets: HttpTarget[] = [];
try {
  await p.core.accounts.create({ email: 'ada@example.com', name: 'Ada', role: 'admin', password: PW }, { type: 'system', id: 'screenshots', name: 'screenshots' });
  const names = ['Shop', 'API', 'Checkout', 'Docs', 'Blog', 'Search', 'Images CDN', 'Billing'];
  const uuids: string[] = [];
  for (const name of names) {
    const t = await httpTarget(200);
    targets.push(t);
    const res = await p.api('/v1/monitors', { method: 'POST', json: { name, url: t.url, protocol: 'http', check_frequency: 30 } });
    if (res.status !== 201) throw new Error(`create ${name}: ${res.status} ${await res.text()}`);
    uuids.push((await res.json()).uuid);
  }
  const hook = await (await p.api('/v1/integrations', { method: 'POST', json: { name: 'Ops webhook', type: 'webhook', settings: { url: 'https://hooks.example.com/pharos' } } })).json();
  await p.api('/v1/integrations', { method: 'POST', json: { name: 'Team mail', type: 'email', settings: { to: ['ops@example.com'] } } });
  await p.api('/v1/escalation-policies', { method: 'POST', json: { name: 'Business hours', steps: [{ delay_minutes: 0, targets: [{ type: 'integration', uuid: hook.uuid }] }] } });
  for (let minute = 0; minute < 40; minute++) {
    targets[2]!.respond(minute >= 12 && minute < 17 ? 503 : 200);
    if (minute === 30) targets[7]!.respond(500);
    for (let half = 0; half < 2; half++) await p.advance(30_000);
  }
  await p.core.checks.flush();

  const browser = await launchBrowser();
  const ctx = await browser.newContext({ viewport: { width: 1366, height: 900 }, colorScheme: 'light' });
  const tab = await ctx.newPage();
  await tab.goto(`${p.url}/login`);
  await tab.fill('input[name=email]', 'ada@example.com');
  await tab.fill('input[name=password]', PW);
  await tab.click('button[type=submit]');
  await tab.waitForURL(`${p.url}/`);
  await tab.screenshot({ path: join(out, 'console-overview.png'), fullPage: true });
  await tab.goto(`${p.url}/monitors/${uuids[2]}?range=1h`);
  await tab.screenshot({ path: join(out, 'console-monitor.png'), fullPage: true });
  await tab.goto(`${p.url}/integrations`);
  await tab.screenshot({ path: join(out, 'console-integrations.png'), fullPage: true });
  await tab.goto(`${p.url}/outages`);
  await tab.screenshot({ path: join(out, 'console-inbox.png'), fullPage: true });
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, storageState: await ctx.storageState() });
  const ptab = await phone.newPage();
  await ptab.goto(`${p.url}/outages`);
  await ptab.screenshot({ path: join(out, 'console-phone-inbox.png') });
  await browser.close();
  console.log(`screenshots written to ${out}`);
} finally {
  for (const t of targets) await t.stop();
  await p.cleanup();
}
