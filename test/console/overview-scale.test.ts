import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { request } from 'node:http';
import { monitorDefaults, type MonitorSettings } from '../../src/domain/monitor.ts';
import type { Region } from '../../src/domain/regions.ts';
import { newId, ID_PREFIX } from '../../src/domain/ids.ts';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { setupAdmin, signIn, type ConsoleClient } from '../support/console.ts';

/**
 * Issue 33 point 5: the overview at 2,100 monitors is paged, sorted, searched and filtered by the
 * store (SQL), counts stay right, HTML is compressed; bulk actions are one transaction each, audited,
 * role-checked and work as plain form posts. Monitors are seeded straight through the store in one
 * transaction (no checks run: nothing is scheduled for them).
 */
const N = 2_100;
const HOUR = 3_600_000;
const name = (i: number) => `svc-${String(i).padStart(4, '0')}`;
/** What monitor `i` is: paused every 7th; else never checked every 13th (pending); else down every 10th; else up. */
const kindOf = (i: number): 'paused' | 'pending' | 'down' | 'up' => (i % 7 === 0 ? 'paused' : i % 13 === 0 ? 'pending' : i % 10 === 0 ? 'down' : 'up');

let p: TestPharos;
let admin: ConsoleClient;
const uuids: string[] = [];
const expected = { up: 0, down: 0, paused: 0, pending: 0 };

before(async () => {
  p = await startTestPharos({
    channels: [{ name: 'yaml-hook', type: 'webhook', url: 'http://127.0.0.1:9/yaml' }],
    escalation_policies: [{ uuid: 'ep_yaml', name: 'From YAML', steps: [{ after_minutes: 0, channels: ['yaml-hook'] }], repeat_every_minutes: 10 }],
  });
  const now = p.clock.now();
  p.store.tx((tx) => {
    for (let i = 0; i < N; i++) {
      const k = kindOf(i);
      expected[k]++;
      const settings = { ...monitorDefaults('london' as Region), name: name(i), url: `https://host-${i}.example.com/health`, paused: k === 'paused' } as MonitorSettings;
      const m = tx.monitors.insert(newId(ID_PREFIX.monitor), settings, now - 10 * HOUR);
      uuids.push(m.uuid);
      if (k === 'pending') continue;
      // Response time i ms; last change i minutes ago for the down ones (the others: their creation).
      tx.checks.insertResults([{ monitorId: m.id, at: now - 60_000, region: 'london', probe: 'local', ok: k !== 'down', latencyMs: i, statusCode: 200, reason: null }]);
      if (k === 'down') {
        tx.monitors.setStatus(m.id, 'down');
        tx.checks.insertFlip(m.id, now - i * 60_000, 'down', 'seeded');
      }
    }
  });
  // After the seed: on PostgreSQL its one synchronous transaction holds the loop for seconds, which an idle keep-alive socket would not outlive.
  admin = await setupAdmin(p);
});
after(() => p?.cleanup());

const rowsOf = (html: string) => [...html.matchAll(/<tr id="row-([^"]+)" data-kind="(\w+)" data-status="(\w+)"/g)].map((m) => ({ uuid: m[1]!, status: m[3]! }));
const namesOf = (html: string) => [...html.matchAll(/<tr id="row-[^"]+"[^>]*>.*?<a href="\/monitors\/[^"]+">([^<]+)<\/a>/g)].map((m) => m[1]!);
const count = (html: string, st: string) => Number(new RegExp(`data-count="${st}"><b>(\\d+)</b>`).exec(html)?.[1]);

describe('the overview at 2,100 monitors', () => {
  test('the first page shows 50 rows, down first then pending, up, paused, by name; counts cover every monitor', async () => {
    const res = await admin.get('/');
    assert.equal(res.status, 200);
    const rows = rowsOf(res.html);
    assert.equal(rows.length, 50);
    const names = namesOf(res.html);
    const down = Array.from({ length: N }, (_, i) => i).filter((i) => kindOf(i) === 'down').map(name);
    assert.deepEqual(names, down.slice(0, 50));
    for (const st of ['up', 'down', 'paused', 'pending'] as const) assert.equal(count(res.html, st), expected[st], `count ${st}`);
    assert.match(res.html, new RegExp(`1–50 of ${N.toLocaleString('en-US')}`));
    assert.match(res.html, /href="\/\?page=2" rel="next"/);
    assert.ok(res.html.length < 100_000, `first page ${res.html.length} bytes of HTML`);
    // Each row's newest check (seeded a minute ago; "never" for the pending ones).
    const row = (i: number) => new RegExp(`id="row-${uuids[i]}"[^]*?</tr>`).exec(res.html)?.[0] ?? '';
    assert.match(row(10), /<td class="num hide-sm">1 min ago<\/td>/);
    const pendingPage = await admin.get('/?status=pending&per=5');
    assert.equal((pendingPage.html.match(/<td class="num hide-sm">never<\/td>/g) ?? []).length, 5);
  });

  test('pages follow each other without gaps or repeats', async () => {
    const seen = new Set<string>();
    for (let page = 1; page <= 4; page++) for (const r of rowsOf((await admin.get(`/?per=200&page=${page}`)).html)) seen.add(r.uuid);
    assert.equal(seen.size, 800);
    const last = await admin.get(`/?per=200&page=11`);
    assert.equal(rowsOf(last.html).length, N - 2000, 'the last page holds the rest');
    assert.doesNotMatch(last.html, /rel="next"/);
    const past = await admin.get('/?page=999');
    assert.equal(rowsOf(past.html).length, 0);
    assert.match(past.html, /Nothing on this page/);
  });

  test('per is capped at 200; unknown sorts and pages fall back to the defaults', async () => {
    assert.equal(rowsOf((await admin.get('/?per=100000')).html).length, 200);
    const odd = await admin.get('/?sort=drop%20table&dir=sideways&page=-3');
    assert.equal(odd.status, 200);
    assert.deepEqual(namesOf(odd.html), namesOf((await admin.get('/')).html));
  });

  test('sort by name (both directions), response time and last change', async () => {
    assert.deepEqual(namesOf((await admin.get('/?sort=name')).html).slice(0, 3), [name(0), name(1), name(2)]);
    assert.deepEqual(namesOf((await admin.get('/?sort=name&dir=desc')).html).slice(0, 2), [name(N - 1), name(N - 2)]);
    const slowest = Array.from({ length: N }, (_, i) => i).filter((i) => kindOf(i) !== 'pending').reverse();
    assert.deepEqual(namesOf((await admin.get('/?sort=response&dir=desc')).html).slice(0, 3), slowest.slice(0, 3).map(name));
    const fastest = await admin.get('/?sort=response');
    assert.deepEqual(namesOf(fastest.html).slice(0, 2), slowest.slice(-2).reverse().map(name));
    // Last change: the down ones flipped i minutes ago, everything else changed at creation (10 h ago).
    const downs = Array.from({ length: N }, (_, i) => i).filter((i) => kindOf(i) === 'down');
    assert.deepEqual(namesOf((await admin.get('/?sort=changed&dir=desc')).html).slice(0, 3), downs.slice(0, 3).map(name));
  });

  test('search by name or URL and filter by status; counts stay those of everything', async () => {
    const res = await admin.get('/?q=svc-012');
    const names = namesOf(res.html).sort();
    assert.deepEqual(names, Array.from({ length: 10 }, (_, j) => name(120 + j)));
    assert.equal(count(res.html, 'up'), expected.up, 'counts are not the filter’s');
    assert.deepEqual(namesOf((await admin.get('/?q=HOST-1999.example')).html), [name(1999)], 'URL, any case');
    assert.equal(rowsOf((await admin.get('/?q=%25')).html).length, 0, '% is a character, not a wildcard');
    const paused = await admin.get('/?status=paused&per=200');
    assert.match(paused.html, new RegExp(`of ${expected.paused.toLocaleString('en-US')}`));
    assert.ok(rowsOf(paused.html).every((r) => r.status === 'paused'));
    const pending = await admin.get('/?status=pending&sort=name');
    assert.equal(namesOf(pending.html)[0], name(13));
  });

  test('the HTML goes brotli or gzip as the client accepts, with Vary; the live stream never', async () => {
    const raw = (path: string, enc: string) =>
      new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
        const req = request(p.url + path, { headers: { cookie: admin.cookie!, 'accept-encoding': enc } }, (res) => {
          const chunks: Buffer[] = [];
          if (path === '/events') {
            resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.alloc(0) });
            res.destroy();
            return;
          }
          res.on('data', (b: Buffer) => chunks.push(b));
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
        });
        req.on('error', reject);
        req.end();
      });
    const plain = await raw('/?per=200', 'identity');
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.match(String(plain.headers.vary), /Accept-Encoding/i);
    const brotli = await raw('/?per=200', 'gzip, deflate, br');
    assert.equal(brotli.headers['content-encoding'], 'br');
    assert.match(String(brotli.headers.vary), /Accept-Encoding/i);
    const html = brotliDecompressSync(brotli.body).toString();
    assert.equal(rowsOf(html).length, 200);
    assert.ok(brotli.body.length * 4 < plain.body.length, `compressed ${brotli.body.length} of ${plain.body.length} bytes`);
    const gzipped = await raw('/?per=200', 'gzip');
    assert.equal(gzipped.headers['content-encoding'], 'gzip');
    assert.equal(rowsOf(gunzipSync(gzipped.body).toString()).length, 200);
    assert.equal((await raw('/?per=200', 'br;q=0, gzip')).headers['content-encoding'], 'gzip');
    const events = await raw('/events', 'gzip, br');
    assert.equal(events.headers['content-type'], 'text/event-stream');
    assert.equal(events.headers['content-encoding'], undefined);
  });
});

describe('bulk actions (one transaction each, audited, editors only, plain form posts)', () => {
  const pageUuidsOf = (html: string) => /name="page_uuids" value="([^"]*)"/.exec(html)![1]!.split(',').filter(Boolean);
  const monitor = (i: number) => p.store.monitors.get(uuids[i]!)!;
  const auditOf = async (uuid: string) => (await p.core.auditLog.page({ resourceType: 'monitor', resourceUuid: uuid }, 50, null)).entries;

  test('a viewer may not act in bulk (403) and has no bulk bar', async () => {
    await p.core.accounts.create({ email: 'vic@example.com', role: 'viewer', password: 'viewer password' }, { type: 'system', id: 'test', name: 'test' });
    const viewer = await signIn(p, 'vic@example.com', 'viewer password');
    const html = (await viewer.get('/?q=svc-030')).html;
    assert.doesNotMatch(html, /id="bulk"/);
    const res = await viewer.post('/monitors/bulk', { action: 'pause', uuid: [uuids[302]!] });
    assert.equal(res.status, 403);
    assert.equal(monitor(302).paused, false);
  });

  test('"select all on this page" pauses the page’s monitors; the answer is the same list with "Paused N monitors."', async () => {
    const list = await admin.get('/?q=svc-030');
    const onPage = pageUuidsOf(list.html);
    assert.equal(onPage.length, 10);
    const res = await admin.post('/monitors/bulk', { all: 'page', page_uuids: onPage.join(','), action: 'pause', back: '/?q=svc-030' });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get('location'), '/?q=svc-030&done=pause&n=10');
    const after = await admin.get(res.headers.get('location')!);
    assert.match(after.html, /<p class="flash" id="flash" role="status">Paused 10 monitors\.<\/p>/);
    assert.ok(rowsOf(after.html).every((r) => r.status === 'paused'));
    for (let i = 300; i < 310; i++) assert.equal(monitor(i).paused, true);
    // Audited as single edits: one entry per monitor that changed (none for svc-0301, paused already).
    for (let i = 300; i < 310; i++) {
      const entries = await auditOf(uuids[i]!);
      assert.equal(entries.filter((e) => e.action === 'update').length, kindOf(i) === 'paused' ? 0 : 1, `audit of ${name(i)}`);
    }
    assert.equal(count(after.html, 'paused'), expected.paused + Array.from({ length: 10 }, (_, j) => 300 + j).filter((i) => kindOf(i) !== 'paused').length);
  });

  test('ticked rows resume; an escalation policy is attached to the ticked rows, all or none', async () => {
    const res = await admin.post('/monitors/bulk', { uuid: [uuids[301]!, uuids[302]!], action: 'resume', back: '/?q=svc-030' });
    assert.equal(res.headers.get('location'), '/?q=svc-030&done=resume&n=2');
    assert.equal(monitor(301).paused, false);
    assert.equal(monitor(302).paused, false);
    const attach = await admin.post('/monitors/bulk', { uuid: [uuids[401]!, uuids[402]!], action: 'policy', policy: 'ep_yaml', back: '/' });
    assert.equal(attach.headers.get('location'), '/?done=policy&n=2');
    assert.match((await admin.get('/?done=policy&n=2')).html, /Attached the escalation policy to 2 monitors\./);
    assert.equal(monitor(401).escalationPolicyUuid, 'ep_yaml');
    const bad = await admin.post('/monitors/bulk', { uuid: [uuids[403]!, uuids[404]!], action: 'policy', policy: 'ep_nope', back: '/' });
    assert.equal(bad.status, 400);
    assert.match(bad.html, /unknown escalation policy/);
    assert.equal(monitor(403).escalationPolicyUuid, null, 'nothing stored');
    const none = await admin.post('/monitors/bulk', { action: 'pause', back: '/' });
    assert.equal(none.headers.get('location'), '/?done=none&n=0');
  });

  test('a tag is added to the ticked rows and the overview filters by it', async () => {
    const res = await admin.post('/monitors/bulk', { uuid: [uuids[501]!, uuids[502]!, uuids[503]!], action: 'tag', tag: 'Team:ops', back: '/' });
    assert.equal(res.headers.get('location'), '/?done=tag&n=3');
    const tagged = await admin.get('/?tag=team');
    assert.deepEqual(namesOf(tagged.html).sort(), [name(501), name(502), name(503)]);
    // Each row shows its chips in the tag's colour (a class; the colours' stylesheet is linked once).
    const color = (await p.core.tags.list()).find((t) => t.name === 'Team')!.color;
    assert.match(tagged.html, new RegExp(`<ul class="tags" aria-label="Tags"><li class="tag tagc-${color.slice(1)}" data-tag="Team:ops">Team: ops</li></ul>`));
    assert.match(tagged.html, new RegExp(`<link rel="stylesheet" href="/_console/tag-colors.css\\?c=[0-9a-f.]*${color.slice(1)}`));
    assert.match(tagged.html, /<select name="tag" aria-label="Tag">/);
    assert.equal((await admin.post('/monitors/bulk', { uuid: [uuids[501]!], action: 'tag', tag: ':x', back: '/' })).status, 400);
  });

  test('delete asks first (what goes, Delete, Pause instead, Cancel); confirmed, the monitors go in one transaction', async () => {
    const ask = await admin.post('/monitors/bulk', { uuid: [uuids[601]!, uuids[602]!], action: 'delete', back: '/?q=svc-060' });
    assert.equal(ask.status, 200);
    assert.match(ask.html, /<h1>Delete 2 monitors\?<\/h1>/);
    assert.match(ask.html, new RegExp(`<li>${name(601)}</li><li>${name(602)}</li>`));
    assert.match(ask.html, /href="\/\?q=svc-060">Cancel/);
    assert.ok(p.store.monitors.get(uuids[601]!), 'nothing deleted yet');
    const res = await admin.post('/monitors/bulk', { uuid: [uuids[601]!, uuids[602]!], action: 'delete', confirm: 'delete', back: '/?q=svc-060' });
    assert.equal(res.headers.get('location'), '/?q=svc-060&done=delete&n=2');
    assert.equal(p.store.monitors.get(uuids[601]!), undefined);
    assert.equal(p.store.monitors.get(uuids[602]!), undefined);
    assert.match((await admin.get(res.headers.get('location')!)).html, /Deleted 2 monitors\./);
    assert.equal((await auditOf(uuids[601]!)).filter((e) => e.action === 'delete').length, 1);
  });
});

describe('clone a monitor', () => {
  test('"Clone" opens the new-monitor form prefilled, named "… (copy)"; nothing is saved until it is submitted', async () => {
    const m = p.store.monitors.get(uuids[700]!)!;
    const pageHtml = (await admin.get(`/monitors/${m.uuid}`)).html;
    assert.match(pageHtml, new RegExp(`<a class="button secondary" href="/monitors/new\\?clone=${m.uuid}" id="clone">Clone</a>`));
    const before = p.store.monitors.list().length;
    const form = await admin.get(`/monitors/new?clone=${m.uuid}`);
    assert.equal(form.status, 200);
    assert.match(form.html, /name="name"[^>]*value="svc-0700 \(copy\)"|value="svc-0700 \(copy\)"[^>]*name="name"/);
    assert.match(form.html, /value="https:\/\/host-700\.example\.com\/health"/);
    assert.match(form.html, /<form[^>]*action="\/monitors"/);
    assert.equal(p.store.monitors.list().length, before, 'nothing saved');
  });
});
