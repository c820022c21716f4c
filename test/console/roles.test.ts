import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { setupAdmin, signIn, type ConsoleClient } from '../support/console.ts';

// Issue 33 point 11: a viewer never meets a control they may not use. Every console page reachable
// from the overview is walked as an admin and as a viewer: the viewer's pages hold no state-changing
// form but their own (sign out, theme, sessions, password, two-factor, profile) and no link to a
// form of a change (new, edit, delete); each such form asked for directly answers 403 "Not allowed"
// before anything is filled. An editor opens them.
const MIN = 60_000;
let p: TestPharos;
let admin: ConsoleClient;
let editor: ConsoleClient;
let viewer: ConsoleClient;
const system = { type: 'system' as const, id: 'test', name: 'test' };
before(async () => {
  p = await startTestPharos();
  admin = await setupAdmin(p);
  await p.core.accounts.create({ email: 'vic@example.com', role: 'viewer', password: 'viewer password' }, system);
  await p.core.accounts.create({ email: 'eve@example.com', role: 'editor', password: 'editor password' }, system);
  viewer = await signIn(p, 'vic@example.com', 'viewer password');
  editor = await signIn(p, 'eve@example.com', 'editor password');
  const post = async (path: string, json: unknown) => {
    const res = await p.api(path, { method: 'POST', json });
    assert.ok(res.status === 200 || res.status === 201, `${path}: ${res.status}`);
    return res.json();
  };
  await post('/v1/monitors', { name: 'Down', url: 'http://127.0.0.1:9/', check_frequency: 60 });
  await post('/v1/healthchecks', { name: 'Cron', period_value: 1, period_type: 'days', grace_period_value: 1, grace_period_type: 'hours' });
  const hook = await post('/v1/integrations', { name: 'hook', type: 'webhook', settings: { url: 'http://127.0.0.1:9/hook' } });
  await post('/v1/escalation-policies', { name: 'Night', steps: [{ delay_minutes: 0, targets: [{ type: 'integration', uuid: hook.uuid }] }] });
  await post('/v2/statuspages', { name: 'Acme', subdomain: 'acme', sections: [] });
  await post('/v3/incidents', { title: { en: 'Payments failing' }, type: 'outage', updates: [{ text: { en: 'Looking' }, type: 'investigating' }] });
  const now = p.clock.now();
  await post('/v1/maintenance-windows', { name: 'db upgrade', start_date: new Date(now + 60 * MIN).toISOString(), end_date: new Date(now + 90 * MIN).toISOString(), monitors: [] });
  await p.advance(2 * MIN);
});
after(async () => {
  await p.cleanup();
});

const shapeOf = (path: string) => path.replace(/\/[A-Za-z]+_[0-9A-Za-z_-]{6,}|\/\d+(?=\/|$)/g, '/:id');
const SKIP = /^\/(logout|events|_console|_pharos|status\/|ping\/|v\d\/|docs|openapi|metrics|healthz)|\.(svg|json|atom|css|js|png)$/;
/** A path that shows a form to change something. */
const FORM_PAGE = /\/(new|edit|delete|test)$/;
/** Forms any signed-in person may post (router.ts SELF_SERVICE). */
const OWN = /^\/(logout|theme|profile(\/|$)|settings\/sessions|settings\/password|settings\/totp\/)/;

/** Every page reachable from `/` within four links, one per path shape: path → HTML. */
async function walk(cl: ConsoleClient): Promise<Map<string, string>> {
  const pages = new Map<string, string>();
  const seen = new Set<string>();
  let frontier = ['/'];
  for (let depth = 0; depth < 4; depth++) {
    const next: string[] = [];
    for (const path of frontier) {
      if (seen.has(shapeOf(path))) continue;
      seen.add(shapeOf(path));
      const res = await cl.get(path);
      if (res.status !== 200) continue;
      pages.set(path, res.html);
      for (const [, h] of res.html.matchAll(/<a [^>]*href="(\/[^"#?]*)/g)) if (!SKIP.test(h!) && !seen.has(shapeOf(h!))) next.push(h!);
    }
    frontier = [...new Set(next)];
  }
  return pages;
}

test('a viewer sees no form or link for a change they may not make; each form asked for directly is 403 Not allowed; an editor opens them', async () => {
  const adminPages = await walk(admin);
  const forms = [...adminPages.keys()].filter((x) => FORM_PAGE.test(x));
  assert.ok(forms.length >= 8, `admin reached the forms: ${forms.join(' ')}`);
  const viewerPages = await walk(viewer);
  assert.ok(viewerPages.size >= 10, `the viewer reached ${[...viewerPages.keys()].join(' ')}`);
  const problems: string[] = [];
  for (const [path, html] of viewerPages) {
    // A read-only form (fields shown, nothing to submit) is fine; one with a submit control is not.
    for (const [, form, body] of html.matchAll(/(<form[^>]*>)([^]*?)<\/form>/g)) {
      const method = /method="([a-z]+)"/i.exec(form!)?.[1]?.toLowerCase() ?? 'get';
      const action = /action="([^"]*)"/.exec(form!)?.[1] ?? path;
      const submits = /<button(?![^>]*type="button")|<input[^>]*type="submit"/.test(body!);
      if (method === 'post' && submits && !OWN.test(action)) problems.push(`${path}: a form posting to ${action}`);
    }
    for (const [, h] of html.matchAll(/<a [^>]*href="(\/[^"#?]*)/g)) if (FORM_PAGE.test(h!)) problems.push(`${path}: a link to ${h}`);
    if (/hx-post=/.test(html)) problems.push(`${path}: an hx-post control`);
  }
  for (const path of forms) {
    const res = await viewer.get(path);
    if (res.status !== 403 || !/Not allowed/.test(res.html) || /<input[^>]+name="name"/.test(res.html)) problems.push(`GET ${path} as a viewer: ${res.status}`);
  }
  assert.deepEqual(problems, []);
  for (const path of forms.filter((x) => !/^\/(settings|integrations\/[^/]+\/test)/.test(x))) assert.equal((await editor.get(path)).status, 200, `GET ${path} as an editor`);
});
