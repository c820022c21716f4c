import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startPostgres, type TestPostgres } from '../support/postgres.ts';
import { freePort, spawnPharos } from '../support/process.ts';
import { tempDir, ONCE_IN_POSTGRES_MATRIX } from '../support/pharos.ts';

// Issue 31, "no network round trip blocks the event loop", on the ping path: while the database is
// frozen (SIGSTOP of the postmaster and every backend: connections stay open, nothing answers, as in
// a network cut) a ping answers 503 ("not stored", or "may not be stored" when its statement already
// went to the frozen server) within the driver's bound (statement timeout + 5 s),
// and meanwhile the event loop keeps answering. Before, the ping's transaction waited on Atomics.wait
// in the event loop: every other request waited with it.
//
// The loop is probed with a request the ping handler answers without the database (a ping to an
// unknown signal: 404 at once). (The Host lookup every request through the Hono app makes is
// asynchronous since the store host thread, so /healthz would do as well: test/api/event-loop-postgres.test.ts.)

const TOKEN = 'pings-frozen-admin-token-0123456789ab';
const STATEMENT_TIMEOUT_MS = 500;
/** The driver gives up on a call after the statement timeout + 5 s. */
const BOUND_MS = STATEMENT_TIMEOUT_MS + 5000;

const cleanups: Array<() => Promise<void> | void> = [];
after(async () => {
  while (cleanups.length) await cleanups.pop()!();
});


test('a ping while the database is frozen answers 503 within the driver bound, and the event loop answers all along', { timeout: 120_000, skip: ONCE_IN_POSTGRES_MATRIX }, async () => {
  const pgsql: TestPostgres = await startPostgres('pings_frozen');
  cleanups.push(() => pgsql.cleanup());
  const dir = tempDir('pharos-pings-frozen-');
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const config = join(dir, 'config.yaml');
  writeFileSync(config, JSON.stringify({ log_level: 'info', storage: { postgres_statement_timeout_ms: STATEMENT_TIMEOUT_MS } }));
  const port = await freePort();
  const pharos = await spawnPharos({ PHAROS_CONFIG: config, PHAROS_LISTEN: `127.0.0.1:${port}`, PHAROS_DATA_DIR: join(dir, 'data'), PHAROS_DATABASE_URL: pgsql.url, PHAROS_ADMIN_TOKEN: TOKEN });
  cleanups.push(() => {
    if (pharos.child.exitCode === null && pharos.child.signalCode === null) pharos.child.kill('SIGKILL');
  });
  const res = await fetch(`${pharos.url}/v1/healthchecks`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'job', period_value: 1, period_type: 'days', grace_period_value: 1, grace_period_type: 'hours' }),
  });
  const created = await res.text();
  assert.equal(res.status, 201, created);
  const token = (JSON.parse(created) as { healthcheck: { uuid: string } }).healthcheck.uuid;
  for (let i = 0; i < 3; i++) assert.equal((await fetch(`${pharos.url}/ping/${token}`)).status, 200, 'pings are stored before the freeze');

  const pids = pgsql.pids();
  for (const pid of pids) process.kill(pid, 'SIGSTOP');
  const probes: Array<{ ok: boolean; status: number | string }> = [];
  let pinging = true;
  let ping: { status: number; text: string; ms: number } | undefined;
  try {
    const started = Date.now();
    const pinged = fetch(`${pharos.url}/ping/${token}`, { signal: AbortSignal.timeout(BOUND_MS * 3) }).then(async (r) => {
      ping = { status: r.status, text: await r.text(), ms: Date.now() - started };
      pinging = false;
    });
    // A probe every 200 ms while the ping waits; each gets 1 s to answer (a loop blocked on the
    // database would hold it for the whole bound).
    while (pinging) {
      await new Promise((r) => setTimeout(r, 200));
      try {
        const h = await fetch(`${pharos.url}/ping/${token}/not-a-signal`, { signal: AbortSignal.timeout(1000) });
        await h.text();
        probes.push({ ok: h.status === 404, status: h.status });
      } catch (e) {
        probes.push({ ok: false, status: (e as Error).name });
      }
    }
    await pinged;
  } finally {
    for (const pid of pids) process.kill(pid, 'SIGCONT');
  }
  console.log(`frozen database: the ping answered ${ping!.status} after ${ping!.ms} ms; the loop probe answered ${probes.filter((h) => h.ok).length} of ${probes.length} times within 1 s`);
  assert.equal(ping!.status, 503, `the ping is not acknowledged (${ping!.text})`);
  // Its one statement sent to the frozen server may still run when it wakes: "may not be stored"
  // (store.outcome_unknown); a statement still waiting for a connection: "not stored".
  assert.match(ping!.text, /^Ping (may not be stored \(the database connection was lost\)|not stored), try again$/);
  assert.ok(ping!.ms < BOUND_MS + 5000, `the ping answered within the driver's bound (${ping!.ms} ms)`);
  assert.ok(probes.length >= 5, 'several probes were made while the ping waited');
  assert.deepEqual(
    probes.filter((h) => !h.ok),
    [],
    'the event loop answered every probe while the ping waited',
  );
});
