import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startPostgres, type TestPostgres } from '../support/postgres.ts';
import { freePort, spawnPharos, waitFor } from '../support/process.ts';
import { tempDir, ONCE_IN_POSTGRES_MATRIX } from '../support/pharos.ts';
import { httpReceiver } from '../support/receivers.ts';
import { httpTarget } from '../support/targets.ts';

// Issue 31's rule, "no network round trip ever blocks the event loop", for a whole serving Pharos on
// PostgreSQL. A real process is driven through the API, status pages, pings, metrics, a monitor's
// checks going down and up, and a manual outage alerted through a webhook; with
// PHAROS_TRACE_SYNC_STORE it writes every call site of a synchronous store statement on its main
// thread (src/store/sync-trace.ts) — and after start-up there must be none. Then the database is
// frozen (SIGSTOP of the whole cluster, as in a network cut): /healthz keeps answering within 1 s all
// along while API and status page requests wait for the database and are answered (503) at their bound.
// A real PostgreSQL whatever PHAROS_TEST_DRIVER says.

const TOKEN = 'event-loop-admin-token-0123456789abcd';
const STATEMENT_TIMEOUT_MS = 500;

const cleanups: Array<() => Promise<void> | void> = [];
after(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

test('a serving Pharos on PostgreSQL runs no synchronous store statement on its event loop, and answers while the database is frozen', { timeout: 240_000, skip: ONCE_IN_POSTGRES_MATRIX }, async () => {
  const pgsql: TestPostgres = await startPostgres('event_loop');
  cleanups.push(() => pgsql.cleanup());
  const dir = tempDir('pharos-event-loop-');
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const hooks = await httpReceiver();
  cleanups.push(hooks.close);
  const target = await httpTarget(200);
  cleanups.push(() => target.stop());
  const trace = join(dir, 'sync-trace.log');
  const config = join(dir, 'config.yaml');
  writeFileSync(
    config,
    [
      'log_level: info',
      'storage:',
      `  postgres_statement_timeout_ms: ${STATEMENT_TIMEOUT_MS}`,
      'alerting:',
      '  retry_base_seconds: 1',
      '  retry_max_seconds: 1',
      'channels:',
      '  - name: hook',
      '    type: webhook',
      `    url: ${hooks.url}/hook`,
      'escalation_policies:',
      '  - uuid: ep_now',
      '    name: Now',
      '    steps:',
      '      - after_minutes: 0',
      '        channels: [hook]',
      '',
    ].join('\n'),
  );
  const port = await freePort();
  const pharos = await spawnPharos({
    PHAROS_CONFIG: config,
    PHAROS_LISTEN: `127.0.0.1:${port}`,
    PHAROS_DATA_DIR: join(dir, 'data'),
    PHAROS_DATABASE_URL: pgsql.url,
    PHAROS_ADMIN_TOKEN: TOKEN,
    PHAROS_TRACE_SYNC_STORE: trace,
  });
  cleanups.push(() => {
    if (pharos.child.exitCode === null && pharos.child.signalCode === null) pharos.child.kill('SIGKILL');
  });
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${pharos.url}${path}`, {
      method,
      headers: { Authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${text}`);
    return text ? (JSON.parse(text) as any) : undefined;
  };

  // Monitors: create, read, list, update; its checks are stored; down opens an outage, up resolves it.
  const monitor = await api('POST', '/v1/monitors', { name: 'web', url: target.url, check_frequency: 10, escalation_policy: 'ep_now' });
  await api('GET', `/v1/monitors/${monitor.uuid}`);
  await api('PUT', `/v1/monitors/${monitor.uuid}`, { name: 'web site', url: target.url, check_frequency: 10, escalation_policy: 'ep_now' });
  await api('GET', '/v1/monitors');
  await api('GET', '/v2/reporting/monitor-reports');
  target.respond(500, 'down');
  await waitFor('the monitor down', async () => (await api('GET', `/v1/monitors/${monitor.uuid}`)).status === 'down', 90_000);
  await waitFor('the outage alert', async () => hooks.delivered('/hook').length >= 1, 30_000);
  target.respond(200, 'ok');
  await waitFor('the monitor up again', async () => (await api('GET', `/v1/monitors/${monitor.uuid}`)).status === 'up', 90_000);
  await api('GET', `/v2/reporting/monitor-reports/${monitor.uuid}`);

  // Healthchecks and their pings.
  const hc = (await api('POST', '/v1/healthchecks', { name: 'job', period_value: 1, period_type: 'days', grace_period_value: 1, grace_period_type: 'hours' })).healthcheck;
  assert.equal((await fetch(`${pharos.url}/ping/${hc.uuid}`)).status, 200);
  assert.equal((await fetch(`${pharos.url}/ping/${hc.uuid}`, { method: 'POST', body: 'log line' })).status, 200);
  await api('GET', `/v1/healthchecks/${hc.uuid}`);
  await api('POST', `/v1/healthchecks/${hc.uuid}/pause`);
  await api('POST', `/v1/healthchecks/${hc.uuid}/resume`);
  await api('GET', '/v1/healthchecks');

  // Outages: a manual one, alerted, acknowledged and resolved.
  const outage = (await api('POST', '/v2/outages', { description: 'manual', escalationPolicyUuid: 'ep_now' })).outage;
  await waitFor('the manual outage alert', async () => hooks.delivered('/hook').some((b) => b.outage?.uuid === outage.uuid), 30_000);
  await api('POST', `/v2/outages/${outage.uuid}/acknowledge`);
  await api('POST', `/v2/outages/${outage.uuid}/resolve`);
  await api('GET', '/v2/outages?status=all');
  await api('GET', `/v2/outages/${outage.uuid}`);

  // Incidents, maintenance windows, a status page and its public view.
  const page = (await api('POST', '/v2/statuspages', { name: 'Acme', subdomain: 'acme', sections: [{ name: { en: 'Web' }, services: [{ monitor_uuid: monitor.uuid }] }] })).statuspage;
  const incident = await api('POST', '/v3/incidents', { title: { en: 'Slow' }, text: { en: 'Looking' }, type: 'incident', statuspages: [page.uuid] });
  await api('POST', `/v3/incidents/${incident.uuid}/updates`, { text: { en: 'Fixed' }, type: 'resolved', date: new Date().toISOString() });
  await api('GET', '/v3/incidents');
  const start = new Date(Date.now() + 3_600_000).toISOString();
  const end = new Date(Date.now() + 7_200_000).toISOString();
  await api('POST', '/v1/maintenance-windows', { name: 'upgrade', start_date: start, end_date: end, monitors: [monitor.uuid] });
  await api('GET', '/v1/maintenance-windows');
  const view = await fetch(`${pharos.url}/status/acme`);
  assert.equal(view.status, 200, await view.text());
  assert.equal((await fetch(`${pharos.url}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } })).status, 200);
  await api('GET', '/v1/cluster');
  await api('DELETE', `/v1/monitors/${monitor.uuid}`);

  // Frozen database: /healthz answers within 1 s all along (from memory), and requests that need the
  // database answer — 503 once their call is given up (statement timeout + 6 s) — instead of hanging.
  const pids = pgsql.pids();
  for (const pid of pids) process.kill(pid, 'SIGSTOP');
  const probes: Array<{ ok: boolean; status: number | string }> = [];
  const needing: Array<{ path: string; status: number | string }> = [];
  try {
    const boundMs = STATEMENT_TIMEOUT_MS + 6000 + 2000;
    const asked = ['/v1/monitors', '/status/acme', '/v2/outages', '/v1/healthchecks'].map(async (path) => {
      try {
        const r = await fetch(`${pharos.url}${path}`, { headers: { Authorization: `Bearer ${TOKEN}` }, signal: AbortSignal.timeout(boundMs) });
        await r.text();
        needing.push({ path, status: r.status });
      } catch (e) {
        needing.push({ path, status: (e as Error).name });
      }
    });
    let waiting = true;
    const all = Promise.all(asked).then(() => (waiting = false));
    while (waiting) {
      try {
        const r = await fetch(`${pharos.url}/healthz`, { signal: AbortSignal.timeout(1000) });
        await r.text();
        probes.push({ ok: true, status: r.status });
      } catch (e) {
        probes.push({ ok: false, status: (e as Error).name });
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    await all;
  } finally {
    for (const pid of pids) process.kill(pid, 'SIGCONT');
  }
  console.log(`frozen database: /healthz answered ${probes.filter((p) => p.ok).length} of ${probes.length} probes within 1 s (${[...new Set(probes.map((p) => p.status))].join(', ')}); requests needing the database: ${needing.map((n) => `${n.path} ${n.status}`).join(', ')}`);
  assert.ok(probes.length >= 5, 'probed while the requests waited');
  assert.deepEqual(probes.filter((p) => !p.ok), [], '/healthz answered within 1 s all along');
  assert.deepEqual(needing.filter((n) => typeof n.status !== 'number'), [], 'every request needing the database was answered within its bound');

  pharos.child.kill('SIGTERM');
  await pharos.exited;
  const lines = existsSync(trace) ? readFileSync(trace, 'utf8') : '';
  const serving = lines.split('\n').filter((l, i, all) => l.startsWith('serving: ') || (i > 0 && all[i - 1]!.startsWith('serving: ')));
  assert.equal(serving.length, 0, `synchronous store statements on the event loop while serving:\n${serving.join('\n')}`);
});
