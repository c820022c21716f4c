import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startTestPharos, tempDir } from '../support/pharos.ts';
import { startPostgres } from '../support/postgres.ts';
import { httpTarget } from '../support/targets.ts';

// Issue 22: `pharos storage copy --from sqlite:DIR --to postgres://…` from source, into a real
// PostgreSQL; then Pharos started on that PostgreSQL serves the same data.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);
async function pharos(args: string[]) {
  try {
    const r = await run(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], { cwd: ROOT, env: { ...process.env, PHAROS_CONFIG: undefined, PHAROS_DATABASE_URL: undefined } });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

test('storage copy moves every table from SQLite to an empty PostgreSQL, verifies the counts, and refuses a non-empty target', { timeout: 120_000 }, async (t) => {
  const dataDir = tempDir();
  const pg = await startPostgres();
  const target = await httpTarget(200);
  t.after(async () => {
    await target.stop();
    await pg.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });
  // Data of every kind through the API on SQLite: monitors with checks, a healthcheck with pings, a status page, an outage.
  const lite = await startTestPharos({ data_dir: dataDir, storage: { driver: 'sqlite' } });
  let liteOpen = true;
  t.after(() => liteOpen && lite.close());
  const monitors = [];
  for (let i = 0; i < 3; i++) monitors.push((await (await lite.api('/v1/monitors', { method: 'POST', json: { name: `m${i}`, url: target.url, check_frequency: 10 } })).json()).uuid);
  // The newest monitor deleted before the copy: its id is not given again on PostgreSQL (issue 35 point 2).
  const gone = await (await lite.api('/v1/monitors', { method: 'POST', json: { name: 'gone', url: target.url, paused: true } })).json();
  assert.equal((await lite.api(`/v1/monitors/${gone.uuid}`, { method: 'DELETE' })).status < 300, true);
  for (let i = 0; i < 5; i++) await lite.advance(10_000);
  const hc = (await (await lite.api('/v1/healthchecks', { method: 'POST', json: { name: 'job', period_value: 1, period_type: 'hours', grace_period_value: 5, grace_period_type: 'minutes' } })).json()).healthcheck;
  for (let i = 0; i < 4; i++) assert.equal((await fetch(`${lite.url}/ping/${hc.uuid}`, { method: 'POST', body: `run ${i}` })).status, 200);
  const page = await lite.api('/v2/statuspages', { method: 'POST', json: { name: 'Status', subdomain: 'acme', sections: [{ name: 'Web', services: monitors.map((uuid) => ({ monitor_uuid: uuid })) }] } });
  assert.equal(page.status, 201, await page.clone().text());
  const outage = await lite.api('/v2/outages', { method: 'POST', json: { description: 'planned work', severity: 'minor' } });
  assert.equal(outage.status, 200, await outage.clone().text());
  await lite.core.checks.flush();
  const before = {
    monitors: await (await lite.api('/v1/monitors')).json(),
    pings: (await (await lite.api(`/v1/healthchecks/${hc.uuid}/pings`)).json()).pings,
    outages: (await (await lite.api('/v2/outages')).json()).outages,
    results: lite.store.checks.countResults(lite.store.monitors.get(monitors[0])!.id),
  };
  assert.ok(before.results >= 5);
  await lite.close();
  liteOpen = false;

  const copy = await pharos(['storage', 'copy', '--from', `sqlite:${dataDir}`, '--to', pg.url]);
  assert.equal(copy.code, 0, copy.stderr);
  const counts = new Map([...copy.stdout.matchAll(/^(\w+) +(\d+)$/gm)].map((m) => [m[1]!, Number(m[2])]));
  assert.equal(counts.get('monitors'), 3);
  assert.equal(counts.get('pings'), 4);
  // Raw results live in one table per hour (migration 0016): every hour's table is copied.
  assert.ok([...counts].filter(([t]) => /^check_results_h\d+$/.test(t)).reduce((n, [, c]) => n + c, 0) >= 15);
  assert.ok(counts.has('console_invitations'), 'every table is listed, empty ones too');
  assert.match(copy.stdout, /counts verified/);
  assert.ok(!copy.stdout.includes('s3cret') && !copy.stderr.includes('s3cret'), 'the password is never printed');

  const again = await pharos(['storage', 'copy', '--from', `sqlite:${dataDir}`, '--to', pg.url]);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /target is not empty \(table \w+ has rows\)/);

  // Pharos on the copy serves the same data, and new ids continue after the copied ones.
  const onPg = await startTestPharos({ storage: { driver: 'postgres', postgres_url: pg.url } });
  try {
    assert.deepEqual(await (await onPg.api('/v1/monitors')).json(), before.monitors);
    assert.deepEqual((await (await onPg.api(`/v1/healthchecks/${hc.uuid}/pings`)).json()).pings, before.pings);
    assert.deepEqual((await (await onPg.api('/v2/outages')).json()).outages, before.outages);
    assert.equal(onPg.store.checks.countResults(onPg.store.monitors.get(monitors[0])!.id), before.results);
    const m = await (await onPg.api('/v1/monitors', { method: 'POST', json: { name: 'new', url: target.url } })).json();
    assert.equal(m.id, gone.id + 1, 'after the highest id SQLite gave, deleted or not');
  } finally {
    await onPg.cleanup();
  }
});
