import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import dns2 from 'dns2';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { setupAdmin, type ConsoleClient } from '../support/console.ts';
import { PROTOCOLS, protocolDefinition } from '../../src/protocols/index.ts';

// The monitor form and page of every protocol of the registry, as a browser with JavaScript off
// uses them (every fieldset posted, the chosen one read): a dns monitor against a local dns2
// server and an http monitor with a JSON assertion against a local JSON target.
const { Packet } = dns2;
const dnsServer = dns2.createServer({
  udp: true,
  handle: (request, send) => {
    const response = Packet.createResponseFromRequest(request);
    const [q] = request.questions;
    if (q!.name.toLowerCase() !== 'db.example.lan') response.header.rcode = 3; // NXDOMAIN
    else if (q!.type === Packet.TYPE.A) response.answers.push({ name: q!.name, type: Packet.TYPE.A, class: Packet.CLASS.IN, ttl: 60, address: '10.0.0.5' } as unknown as (typeof response.answers)[number]);
    send(response);
  },
});

// A JSON target whose `status` the test sets; answers after `delayMs` (real time) when set.
const health = { status: 'UP', delayMs: 0 };
let json: Server;
let jsonUrl = '';
let resolver = '';
let p: TestPharos;
let admin: ConsoleClient;
before(async () => {
  await dnsServer.listen({ udp: { port: 0, address: '127.0.0.1' } });
  resolver = `127.0.0.1:${dnsServer.addresses().udp!.port}`;
  json = createServer((req, res) => {
    req.resume();
    setTimeout(() => res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ status: health.status })), health.delayMs);
  });
  await new Promise<void>((r) => json.listen(0, '127.0.0.1', () => r()));
  jsonUrl = `http://127.0.0.1:${(json.address() as AddressInfo).port}/health`;
  p = await startTestPharos();
  admin = await setupAdmin(p);
});
after(async () => {
  await p.cleanup();
  json.closeAllConnections();
  await new Promise<void>((r) => json.close(() => r()));
  await dnsServer.close();
});

const RECHECK_MS = 3000;
const nextCheck = async (uuid: string) => {
  const due = p.scheduler.nextDueAt(p.store.monitors.get(uuid)!.id)!;
  await p.advance(due - p.clock.now());
  await p.core.checks.flush();
};
const uuidFrom = (res: Response) => /\/(mon_[0-9A-Za-z]{22})$/.exec(res.headers.get('location') ?? '')?.[1] ?? '';
const common = (over: Record<string, string | string[]>) => ({ check_frequency: '10', timeout: '2', regions: ['london'], alerts_wait: '0', escalation_policy: '', port: '', ...over });

/** The form as a browser with JavaScript off posts it: every protocol's fieldset with the page's values, then `fields` over them. */
async function postedForm(fields: Record<string, string | string[]>): Promise<Record<string, string | string[]>> {
  const html = (await admin.get('/monitors/new')).html;
  const form: Record<string, string | string[]> = {};
  for (const m of html.matchAll(/<input type="(?:text|number)" name="([a-z]+\.[a-z_]+)" value="([^"]*)"/g)) form[m[1]!] = m[2]!;
  for (const m of html.matchAll(/<input type="checkbox" name="([a-z]+\.[a-z_]+)" checked=""/g)) form[m[1]!] = 'on';
  for (const m of html.matchAll(/<select name="([a-z]+\.[a-z_]+)">([\s\S]*?)<\/select>/g)) form[m[1]!] = /<option value="([^"]*)" selected=""/.exec(m[2]!)?.[1] ?? '';
  for (const m of html.matchAll(/<textarea name="([a-z]+\.[a-z_]+)"[^>]*>([^<]*)<\/textarea>/g)) form[m[1]!] = m[2]!;
  return { ...form, ...common(fields) };
}

describe('console monitor form: every protocol of the registry', () => {
  test('the new-monitor form has one fieldset per protocol with the fields its definition lets a person set', async () => {
    const html = (await admin.get('/monitors/new')).html;
    for (const name of PROTOCOLS) {
      const d = protocolDefinition(name);
      assert.match(html, new RegExp(`<option value="${name}"`), `${name} is a kind`);
      assert.match(html, new RegExp(`<fieldset data-protocol="${name}"`), `${name} has a fieldset`);
      // A group's members are chosen in the searchable picker (issue 36): its field, not an input, until one is picked.
      for (const f of d.formFields ?? Object.keys(d.fields)) assert.match(html, new RegExp(`${name === 'group' && f === 'group_members' ? 'data-field' : 'name'}="${name}\\.${f}"`), `${name}.${f} is in the form`);
    }
  });

  test('create a dns monitor through the form (JavaScript off: every fieldset posted); it is checked and up; its page shows the settings in words', async () => {
    const form = await postedForm({ name: 'DB name', protocol: 'dns', url: 'db.example.lan', 'dns.dns_resolver': resolver, 'dns.dns_expected': '10.0.0.5' });
    assert.equal(form['http.http_method'], 'GET', 'the other fieldsets are posted too');
    const res = await admin.post('/monitors', form);
    assert.equal(res.status, 303, res.html.slice(0, 500));
    const uuid = uuidFrom(res);
    const m = (await p.core.monitors.get(uuid));
    assert.equal(m.protocol, 'dns');
    assert.deepEqual(m.settings, { dns_record_type: 'A', dns_resolver: resolver, dns_expected: '10.0.0.5', upside_down: false, domain_expiry_days: null }, 'only the chosen protocol is read (with the settings every protocol has)');
    await nextCheck(uuid);
    const page = await admin.get(`/monitors/${uuid}`);
    assert.match(page.html, /id="monitor-status">up</);
    assert.match(page.html, /DNS record · db\.example\.lan/);
    assert.match(page.html, /<dt>Record type<\/dt><dd>A<\/dd>/);
    assert.match(page.html, new RegExp(`<dt>Resolver</dt><dd>${resolver}</dd>`));
    const edit = await admin.get(`/monitors/${uuid}/edit`);
    assert.match(edit.html, new RegExp(`name="dns.dns_resolver" value="${resolver}"`), 'the edit form shows the stored settings');
    const saved = await admin.post(`/monitors/${uuid}`, await postedForm({ name: 'DB name', protocol: 'dns', url: 'db.example.lan', 'dns.dns_resolver': resolver, 'dns.dns_record_type': 'AAAA' }));
    assert.equal(saved.status, 303);
    assert.equal((await p.core.monitors.get(uuid)).settings.dns_record_type, 'AAAA');
    await nextCheck(uuid);
    assert.match((await admin.get(`/monitors/${uuid}`)).html, /No AAAA record for db\.example\.lan/);
  });

  test('an http monitor with a JSON assertion through the form: up, then down with "JSON $.status was \\"DOWN\\"" as the reason', async () => {
    health.status = 'UP';
    const res = await admin.post('/monitors', await postedForm({ name: 'Health', protocol: 'http', url: jsonUrl, 'http.assertions': 'json $.status equals UP\nheader content-type contains json' }));
    assert.equal(res.status, 303, res.html.slice(0, 500));
    const uuid = uuidFrom(res);
    assert.deepEqual((await p.core.monitors.get(uuid)).settings.assertions, [
      { source: 'json', path: '$.status', op: 'equals', value: 'UP' },
      { source: 'header', path: 'content-type', op: 'contains', value: 'json' },
    ]);
    await nextCheck(uuid);
    let page = await admin.get(`/monitors/${uuid}`);
    assert.match(page.html, /id="monitor-status">up</);
    assert.match(page.html, /<dt>Assertions<\/dt><dd>json \$\.status equals UP · header content-type contains json<\/dd>/);
    health.status = 'DOWN';
    await nextCheck(uuid);
    await p.advance(RECHECK_MS); // failures are confirmed by rechecks before the monitor is down
    await p.advance(RECHECK_MS);
    page = await admin.get(`/monitors/${uuid}`);
    assert.match(page.html, /id="monitor-status">down</);
    assert.match(page.html, /JSON \$\.status was &quot;DOWN&quot;/);
    const edit = await admin.get(`/monitors/${uuid}/edit`);
    assert.match(edit.html, /<textarea name="http.assertions"[^>]*>json \$\.status equals UP\nheader content-type contains json<\/textarea>/, 'assertions are edited as the lines they were typed as');
  });

  test('a bad assertion line → 400 with the API message beside the field; nothing is stored', async () => {
    const before = (await p.core.monitors.list()).length;
    const res = await admin.post('/monitors', await postedForm({ name: 'Bad', protocol: 'http', url: jsonUrl, 'http.assertions': 'json $.status equals UP\njson $.count bigger 3' }));
    assert.equal(res.status, 400);
    assert.match(res.html, /data-error-for="assertions">line 2: op must be one of equals, not_equals, contains, matches, exists, lt, gt for source json</);
    assert.match(res.html, /assertions\.1\.op: must be one of equals/, 'the API message in the alert');
    const noPath = await admin.post('/monitors', await postedForm({ name: 'Bad', protocol: 'http', url: jsonUrl, 'http.assertions': 'json status equals UP' }));
    assert.match(noPath.html, /data-error-for="assertions">line 1: path must be a JSONPath starting with \$</);
    assert.equal((await p.core.monitors.list()).length, before);
  });

  test('degraded_after_ms: a slow but passing check shows "Degraded performance" on the monitor page', async () => {
    health.status = 'UP';
    health.delayMs = 30;
    const res = await admin.post('/monitors', await postedForm({ name: 'Slow', protocol: 'http', url: jsonUrl, 'http.degraded_after_ms': '5' }));
    assert.equal(res.status, 303, res.html.slice(0, 500));
    const uuid = uuidFrom(res);
    await nextCheck(uuid);
    const page = await admin.get(`/monitors/${uuid}`);
    assert.match(page.html, /id="monitor-status">up</);
    assert.match(page.html, /id="monitor-degraded">Degraded performance</);
    assert.match(page.html, /<dt>Degraded after<\/dt><dd>5 ms<\/dd>/);
    health.delayMs = 0;
  });

  test("a database monitor's password is hidden on the overview and the monitor page; the overview filters by every protocol", async () => {
    const res = await admin.post('/monitors', await postedForm({ name: 'App DB', protocol: 'postgres', url: 'postgres://app:s3cret-pw@127.0.0.1:9/app' }));
    assert.equal(res.status, 303, res.html.slice(0, 500));
    const uuid = uuidFrom(res);
    const page = await admin.get(`/monitors/${uuid}`);
    assert.match(page.html, /PostgreSQL · postgres:\/\/app:\*\*\*@127\.0\.0\.1:9\/app/);
    const home = await admin.get('/?protocol=postgres');
    assert.match(home.html, /<option value="dns"/, 'every protocol is a filter');
    assert.match(home.html, new RegExp(`id="row-${uuid}"`));
    for (const html of [page.html, home.html]) assert.doesNotMatch(html, /s3cret-pw/);
  });
});
