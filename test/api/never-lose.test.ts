import { afterEach, test } from 'node:test';
import { sqliteOf } from '../../src/store/db.ts';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createLogger } from '../../src/lib/logger.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { startTestPharos, tempDir, WRITE_TOKEN, type TestPharos } from '../support/pharos.ts';
import { httpReceiver } from '../support/receivers.ts';
import { httpTarget } from '../support/targets.ts';
import { waitFor } from '../support/process.ts';
import { allowWrites, refuseWrites } from '../support/store-faults.ts';
import { rawDb } from '../../src/store/index.ts';

// Issue #14 "never lose, never crash": a real Pharos over HTTP on a manual clock. Store failures are
// real SQLite errors: a trigger that aborts a write (an I/O error stand-in) or `max_page_count`
// (a genuine SQLITE_FULL), set on the server's own connection. On PostgreSQL (PHAROS_TEST_DRIVER)
// the same triggers in PL/pgSQL, and a trigger raising disk_full (SQLSTATE 53100) stands in for a full disk.

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** A JSON-lines logger at debug level whose lines the test reads. */
function capturingLogger() {
  const lines: string[] = [];
  const logger = createLogger('debug', (l) => lines.push(l), 'json');
  return { logger, lines: () => lines.map((l) => JSON.parse(l) as { level: string; msg: string; [k: string]: unknown }) };
}

async function start(config: Record<string, unknown> = {}, logger = capturingLogger()) {
  const p = await startTestPharos(config, new ManualClock(), logger.logger);
  cleanups.push(() => p.cleanup());
  return { p, log: logger };
}

/** Sum of a metric's samples in /metrics. */
async function metric(p: TestPharos, name: string, label = ''): Promise<number> {
  const text = await (await p.api('/metrics')).text();
  let sum = 0;
  for (const line of text.split('\n')) if ((line.startsWith(name + ' ') || line.startsWith(name + '{')) && line.includes(label)) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  return sum;
}

test('a revoked PHAROS_ADMIN_TOKEN does not crash the next start: it stays revoked, with one warning line', async () => {
  const dataDir = tempDir();
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const first = await startTestPharos({ data_dir: dataDir });
  const key = (await first.core.users.listTokens()).find((t) => t.name === 'PHAROS_ADMIN_TOKEN')!;
  assert.ok(await first.core.users.revokeToken(key.id, { type: 'system', id: 'test', name: 'test' }), 'the admin token key is revoked (as `pharos token revoke` does)');
  await first.cleanup();

  const log = capturingLogger();
  const again = await startTestPharos({ data_dir: dataDir }, new ManualClock(), log.logger);
  cleanups.push(() => again.cleanup());
  assert.equal((await again.api('/v1/monitors')).status, 401, 'the revoked secret is not quietly restored');
  const warnings = log.lines().filter((l) => l.level === 'warn' && l.msg.includes('PHAROS_ADMIN_TOKEN'));
  assert.equal(warnings.length, 1, JSON.stringify(log.lines()));
  assert.match(warnings[0]!.msg, new RegExp(`revoked \\(${key.id}\\)`));
  assert.ok(!JSON.stringify(log.lines()).includes(WRITE_TOKEN), 'the secret itself is never logged');
});

test('a failed flush keeps its batch of check results and stores it on a later flush; failures are counted in /metrics', async () => {
  const { p, log } = await start();
  const target = await httpTarget(200);
  cleanups.push(() => target.stop());
  const m = await (await p.api('/v1/monitors', { method: 'POST', json: { name: 'api', url: target.url, check_frequency: 30 } })).json();
  const id = p.store.monitors.get(m.uuid)!.id;
  // The rollups are written in the same flush transaction as the results (their hourly tables are made on demand).
  refuseWrites(p, 'refuse_results', 'BEFORE INSERT', 'check_rollups_hourly');
  await p.advance(95_000); // about three checks and their flushes, all refused
  const done = target.hits;
  assert.ok(done >= 3, `checks ran: ${done}`);
  assert.equal(p.store.checks.latestResults(id, 100).length, 0, 'nothing could be stored');
  assert.ok((await metric(p, 'pharos_result_flush_failures_total')) >= 1, 'failed flushes are counted');
  assert.equal(log.lines().filter((l) => l.msg.startsWith('storing check results failed')).length, 1, 'one line when the trouble starts, not one per retry');

  allowWrites(p, 'refuse_results');
  await p.advance(1_000); // the retry (a check may also fall in this second)
  assert.ok(p.store.checks.latestResults(id, 100).length >= done, 'every result of the failed flushes is stored by the retry');
  await p.core.checks.flush();
  assert.equal(p.store.checks.latestResults(id, 100).length, target.hits, 'one stored result per check done, none lost');
  assert.ok(log.lines().some((l) => l.msg.startsWith('check results stored again')));
});

test('a store error while recording a delivery is caught, logged and retried: no unhandled rejection, no second send', async () => {
  const rejections: unknown[] = [];
  const onRejection = (e: unknown) => rejections.push(e);
  process.on('unhandledRejection', onRejection);
  cleanups.push(() => process.off('unhandledRejection', onRejection));
  const hooks = await httpReceiver();
  cleanups.push(hooks.close);
  const { p, log } = await start({
    channels: [{ name: 'hook', type: 'webhook', url: `${hooks.url}/hook` }],
    escalation_policies: [{ uuid: 'ep_now', name: 'Now', steps: [{ after_minutes: 0, channels: ['hook'] }] }],
  });
  refuseWrites(p, 'refuse_marks', 'BEFORE UPDATE OF delivered_at', 'alerts');
  assert.equal((await p.api('/v2/outages', { method: 'POST', json: { description: 'db down', escalationPolicyUuid: 'ep_now' } })).status, 200);
  await p.advance(0);
  await new Promise((r) => setImmediate(r)); // let a rejection, if any, surface
  assert.deepEqual(rejections, [], 'no promise rejection escapes the dispatcher');
  assert.equal(hooks.delivered('/hook').length, 1);
  assert.equal(p.store.alerts.pendingCount(), 1, 'the delivery is not recorded yet');
  assert.ok(log.lines().some((l) => l.level === 'error' && l.msg.startsWith('alert outbox: the database refused')));

  allowWrites(p, 'refuse_marks');
  await p.advance(10_000);
  assert.equal(p.store.alerts.pendingCount(), 0, 'the delivery is recorded on the retry');
  assert.equal(hooks.received.length, 1, 'and the alert was not sent a second time');
  assert.deepEqual(rejections, []);
});

test('an agent batch that rolls back leaves memory as the database is: its retry opens the outage', async () => {
  const { p } = await start({ probe: { region: 'london', confirmation_checks: 1 } });
  const probeToken = (await p.core.users.createToken({ email: 'agent@example.com', name: 'agent', scope: 'probe', regions: ['paris'] }, { type: 'system', id: 'test', name: 'test' })).token;
  const agent = 'prb_' + 'A'.repeat(22);
  const poll = await p.api('/v1/probes/poll', { method: 'POST', token: probeToken, json: { agent, name: 'paris-1', region: 'paris', version: 'test', assignment: null } });
  assert.equal(poll.status, 200);
  const m = await (await p.api('/v1/monitors', { method: 'POST', json: { name: 'shop', url: 'http://127.0.0.1:9/', check_frequency: 30, regions: ['paris'] } })).json();
  const batch = { agent, region: 'paris', batch: 'b1', results: [{ monitor: m.uuid, at: p.clock.now(), ok: false, latencyMs: 3, statusCode: 503, reason: 'HTTP 503' }] };

  refuseWrites(p, 'refuse_outages', 'BEFORE INSERT', 'outages');
  const refused = await p.api('/v1/probes/results', { method: 'POST', token: probeToken, json: batch });
  assert.notEqual(refused.status, 200, 'the batch is refused (the agent keeps it and retries)');
  assert.equal(await metric(p, 'pharos_monitors', 'status="down"'), 0, 'memory did not move ahead of the rolled-back database');
  assert.equal(await metric(p, 'pharos_agent_results_total'), 0);

  allowWrites(p, 'refuse_outages');
  const retried = await p.api('/v1/probes/results', { method: 'POST', token: probeToken, json: batch });
  assert.equal(retried.status, 200);
  const outages = (await (await p.api('/v2/outages')).json()).outages;
  assert.equal(outages.length, 1, 'the retried batch confirms the failure and opens the outage');
  assert.equal(await metric(p, 'pharos_monitors', 'status="down"'), 1);
  assert.equal(await metric(p, 'pharos_agent_results_total'), 1);
});

test('SQLITE_FULL on an API write answers 503 with the JSON error shape and stores nothing half-done', async () => {
  const { p } = await start();
  const lite = sqliteOf(rawDb(p.store));
  if (lite) lite.pragma(`max_page_count = ${lite.pragma('page_count', { simple: true }) as number}`);
  else refuseWrites(p, 'disk_full', 'BEFORE INSERT', 'monitors', '53100');
  const statuses: number[] = [];
  let full: { status: number; body: { error: string; message: string } } | null = null;
  for (let i = 0; i < 300 && !full; i++) {
    const res = await p.api('/v1/monitors', { method: 'POST', json: { name: `m${i} ${'x'.repeat(180)}`, url: `http://127.0.0.1:9/${'p'.repeat(1500)}` } });
    statuses.push(res.status);
    if (res.status !== 201) full = { status: res.status, body: await res.json() };
  }
  assert.ok(full, 'the database filled up');
  assert.equal(full.status, 503, `statuses: ${statuses.join(',')}`);
  assert.match(full.body.error, /storage full/);
  assert.equal(full.body.message, full.body.error);
  const created = statuses.filter((s) => s === 201).length;
  if (lite) lite.pragma('max_page_count = 1073741823');
  else allowWrites(p, 'disk_full');
  assert.equal((await (await p.api('/v1/monitors')).json()).length, created, 'the refused create left nothing behind');
  assert.equal((await p.api('/v1/monitors', { method: 'POST', json: { name: 'after', url: 'http://127.0.0.1:9/' } })).status, 201, 'writes work again once there is room');
});

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Runs `pharos <args>` from source with `env`; exit code and stderr. */
async function cli(args: string[], env: Record<string, string>) {
  try {
    const r = await promisify(execFile)(process.execPath, ['--import', 'tsx', join(ROOT, 'src/main.ts'), ...args], { cwd: ROOT, env: { ...process.env, ...env } });
    return { code: 0, stderr: r.stderr };
  } catch (e) {
    const err = e as { code: number; stderr: string };
    return { code: err.code, stderr: err.stderr };
  }
}

test('a self-referencing YAML alias in the config and a backup to an unwritable path: one clear line each, no stack trace', { timeout: 60_000 }, async () => {
  const dir = tempDir();
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const config = join(dir, 'config.yaml');
  writeFileSync(config, 'probe: &loop\n  nested: *loop\n');
  const serve = await cli(['serve', '--config', config], { PHAROS_DATA_DIR: join(dir, 'data') });
  assert.equal(serve.code, 1);
  assert.equal(serve.stderr, 'pharos: config: probe.nested: a YAML alias refers to a node that contains it (circular)\n');

  writeFileSync(join(dir, 'empty.yaml'), '');
  const backup = await cli(['backup', '/proc/x.db'], { PHAROS_DATA_DIR: join(dir, 'data'), PHAROS_CONFIG: join(dir, 'empty.yaml') });
  assert.equal(backup.code, 1);
  assert.match(backup.stderr, /^pharos: backup: cannot write \/proc\/x\.db: [^\n]+\n$/, backup.stderr);
});

test("requests Node's HTTP parser refuses are answered in the JSON error shape", async () => {
  const { p } = await start();
  const raw = (request: string) =>
    new Promise<string>((resolve, reject) => {
      const s = connect(p.port, '127.0.0.1', () => s.write(request));
      let out = '';
      s.on('data', (d) => (out += d.toString()));
      s.on('end', () => resolve(out));
      s.on('error', reject);
    });
  const malformed = await raw('GET /v1/monitors HTTP/1.1\r\nHost: 127.0.0.1\r\nthis is not a header\r\n\r\n');
  assert.match(malformed, /^HTTP\/1\.1 400 Bad Request\r\n/);
  assert.match(malformed, /\r\nContent-Type: application\/json\r\n/);
  assert.deepEqual(JSON.parse(malformed.slice(malformed.indexOf('\r\n\r\n') + 4)), { error: 'malformed HTTP request', message: 'malformed HTTP request' });

  const huge = await raw(`GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
  assert.match(huge, /^HTTP\/1\.1 431 /);
  assert.equal(JSON.parse(huge.slice(huge.indexOf('\r\n\r\n') + 4)).error, 'request header fields too large');
});

test('a burst of 150 alerts keeps at most 100 deliveries in flight, and delivers each once', async () => {
  // A webhook receiver that holds every request until released, counting how many wait at once.
  const held: ServerResponse[] = [];
  let holding = true;
  let seen = 0;
  let most = 0;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      seen++;
      if (!holding) return void res.end('ok');
      held.push(res);
      most = Math.max(most, held.length);
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  cleanups.push(() => new Promise((r) => receiver.close(r)));
  const { p } = await start({
    channels: [{ name: 'hook', type: 'webhook', url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, timeout_seconds: 30 }],
    escalation_policies: [{ uuid: 'ep_now', name: 'Now', steps: [{ after_minutes: 0, channels: ['hook'] }] }],
  });
  for (let i = 0; i < 150; i++) assert.equal((await p.api('/v2/outages', { method: 'POST', json: { description: `burst ${i}`, escalationPolicyUuid: 'ep_now' } })).status, 200);
  await waitFor('100 deliveries held by the receiver', async () => held.length === 100);
  assert.equal(p.store.alerts.pendingCount(), 150);
  holding = false;
  for (const res of held.splice(0)) res.end('ok');
  await p.advance(0);
  await waitFor('every alert recorded', async () => (await p.advance(0), p.store.alerts.pendingCount() === 0));
  assert.equal(most, 100, 'never more than 100 at once');
  assert.equal(seen, 150, 'each alert sent once');
});
