import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startTestPharos, tempDir, type TestPharos } from '../support/pharos.ts';
import { upDownRecover } from '../support/monitor-flow.ts';
import { httpTarget, type HttpTarget } from '../support/targets.ts';
import { setupAdmin } from '../support/console.ts';
import { KUMA_2_SCHEMA } from '../support/kuma.ts';
import { importKuma, kumaWriters } from '../../src/core/import-kuma.ts';
import { readKumaDb } from '../../src/store/kuma.ts';
import { turnUpsideDown } from '../../src/protocols/upside-down.ts';
import { DESCRIPTORS_EXHAUSTED_REASON } from '../../src/protocols/descriptors.ts';
import { PROTOCOLS, protocolDefinition } from '../../src/protocols/index.ts';

// Issue 36: upside-down mode for every protocol (up when the check fails, down when it passes), not
// only http: a TCP port that must stay closed, against a real listener on 127.0.0.1; the setting in
// every protocol's fields, the API, the console form and OpenAPI; Kuma's upsideDown imported for
// every type (a Kuma 2.x database built with Kuma's own schema).
let p: TestPharos;
let target: HttpTarget;
before(async () => {
  p = await startTestPharos();
  target = await httpTarget();
});
after(async () => {
  await p?.cleanup();
  await target?.stop().catch(() => undefined);
});

test('turnUpsideDown: a pass becomes a failure saying so, a failure a pass keeping its reason; descriptor shortage stays a failure', () => {
  assert.deepEqual(turnUpsideDown({ ok: true, latencyMs: 3, statusCode: 0, reason: null }), { ok: false, latencyMs: 3, statusCode: 0, reason: 'Upside-down mode: the check passed, so the monitor is down', degraded: undefined });
  assert.equal(turnUpsideDown({ ok: true, latencyMs: 3, statusCode: 204, reason: null, degraded: true }).reason, 'Upside-down mode: the check passed (HTTP 204), so the monitor is down');
  assert.deepEqual(turnUpsideDown({ ok: false, latencyMs: 3, statusCode: 0, reason: 'Connection refused' }), { ok: true, latencyMs: 3, statusCode: 0, reason: 'Upside-down mode: the check failed (Connection refused), so the monitor is up' });
  const pharosFault = { ok: false, latencyMs: 0, statusCode: 0, reason: `${DESCRIPTORS_EXHAUSTED_REASON} (EMFILE)` };
  assert.deepEqual(turnUpsideDown(pharosFault), pharosFault);
  for (const protocol of PROTOCOLS) {
    const d = protocolDefinition(protocol);
    assert.ok('upside_down' in d.fields, `${protocol} takes upside_down`);
    assert.equal((d.defaults as Record<string, unknown>).upside_down, false, protocol);
    assert.ok((d.formFields ?? Object.keys(d.fields)).includes('upside_down'), `${protocol}'s form has it`);
  }
});

test('a TCP port that must stay closed: up while refused (the stored result says why), down saying so when it opens, up again when it closes', async () => {
  await target.stop();
  const m = await upDownRecover(p, { name: 'Telnet must stay closed', protocol: 'port', url: '127.0.0.1', port: target.port, upside_down: true }, {
    breakIt: () => target.listen(),
    reason: 'Upside-down mode: the check passed, so the monitor is down',
    fixIt: () => target.stop(),
  });
  assert.equal(m.upside_down, true);
  const results = await p.store.async.checks.latestResults(p.store.monitors.get(m.uuid as string)!.id, 100);
  const up = results.find((r) => r.ok === 1)!;
  assert.match(up.reason ?? '', /^Upside-down mode: the check failed \(.+\), so the monitor is up$/);
  // turned off again over PUT: the response no longer shows it (API.md's port fields only)
  const put = await p.api(`/v1/monitors/${m.uuid}`, { method: 'PUT', json: { name: 'Telnet', url: '127.0.0.1', protocol: 'port', port: target.port, upside_down: false } });
  assert.equal(put.status, 200, await put.clone().text());
  assert.ok(!('upside_down' in (await put.json())));
  const bad = await p.api('/v1/monitors', { method: 'POST', json: { name: 'x', protocol: 'dns', url: 'example.com', upside_down: 'yes' } });
  assert.equal(bad.status, 400);
  assert.match((await bad.json()).message, /^upside_down: must be a boolean/);
});

test('the console form offers it for every protocol and posts it (JavaScript off); OpenAPI names every protocol for it', async () => {
  const admin = await setupAdmin(p);
  const html = (await admin.get('/monitors/new')).html;
  for (const protocol of PROTOCOLS) assert.match(html, new RegExp(`name="${protocol}\\.upside_down"`), protocol);
  const posted = await admin.post('/monitors', { name: 'Form port', protocol: 'port', url: '127.0.0.1', port: String(target.port), check_frequency: '60', timeout: '2', regions: ['london'], alerts_wait: '0', escalation_policy: '', 'port.upside_down': 'on' });
  assert.equal(posted.status, 303, posted.html.slice(0, 500));
  const uuid = /\/(mon_[0-9A-Za-z]{22})$/.exec(posted.headers.get('location') ?? '')![1]!;
  assert.equal((await (await p.api(`/v1/monitors/${uuid}`)).json()).upside_down, true);
  const doc = await (await fetch(`${p.url}/openapi.json`)).text();
  // the monitor body's property, wherever the document puts it
  const described = /"upside_down":\{[^}]*"description":"([^"]*)"/.exec(doc)?.[1] ?? '';
  for (const protocol of PROTOCOLS) assert.ok(described.includes(protocol), `OpenAPI: upside_down is ${protocol}'s (${described})`);
});

test("Kuma's upsideDown comes over for every type (port, ping, DNS), and a push monitor's is named in the report", async () => {
  const file = join(tempDir(), 'kuma.db');
  const db = new Database(file);
  db.exec(KUMA_2_SCHEMA);
  db.exec(`INSERT INTO user(id, username, password) VALUES (1, 'admin', 'x');
INSERT INTO monitor(id, name, active, user_id, interval, hostname, port, type, upside_down) VALUES (1, 'Closed port', 1, 1, 60, 'db.example.com', 23, 'port', 1);
INSERT INTO monitor(id, name, active, user_id, interval, hostname, type, upside_down) VALUES (2, 'Unreachable', 1, 1, 60, '192.0.2.9', 'ping', 1);
INSERT INTO monitor(id, name, active, user_id, interval, hostname, type, dns_resolve_type, dns_resolve_server, port, upside_down) VALUES (3, 'No record', 1, 1, 600, 'gone.example.com', 'dns', 'A', '1.1.1.1', 53, 1);
INSERT INTO monitor(id, name, active, user_id, interval, hostname, port, type, upside_down) VALUES (4, 'Open port', 1, 1, 60, 'db.example.com', 22, 'port', 0);
INSERT INTO monitor(id, name, active, user_id, interval, type, push_token, upside_down) VALUES (5, 'Inverted push', 1, 1, 3600, 'push', 'UpSiDe0123', 1);`);
  db.close();
  const r = importKuma({ store: p.store, clock: p.clock, publicUrl: 'https://pharos.example.com', writers: kumaWriters(p.core.config), statuspages: p.core.statuspages, seal: (t) => t }, readKumaDb(file));
  const all = (await (await p.api('/v1/monitors')).json()) as Array<Record<string, unknown>>;
  for (const name of ['Closed port', 'Unreachable', 'No record']) {
    assert.equal(r.items.find((i) => i.name === name)?.result, 'created', JSON.stringify(r.items.find((i) => i.name === name)));
    assert.equal(all.find((m) => m.name === name)?.upside_down, true, name);
  }
  assert.ok(!('upside_down' in all.find((m) => m.name === 'Open port')!));
  const push = r.items.find((i) => i.name === 'Inverted push')!;
  assert.ok(push.notes.some((n) => /upside-down mode is not imported/.test(n)), JSON.stringify(push));
});
