import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { systemClock } from '../../src/lib/clock.ts';
import { startTestPharos, ONCE_IN_POSTGRES_MATRIX, type TestPharos } from '../support/pharos.ts';
import { startPostgres, type TestPostgres } from '../support/postgres.ts';
import { waitFor } from '../support/process.ts';
import { httpTarget } from '../support/targets.ts';
import { rawDb } from '../../src/store/index.ts';

// Issue 22 "Database outage test": a real PostgreSQL (its own cluster, whatever PHAROS_TEST_DRIVER
// says) stopped for 30 s while pings, API writes and checks keep coming. Real clock: the scheduler,
// the result flushes and every other timer run through the outage as they would in production.
const OUTAGE_MS = 30_000;

/**
 * One answer the load got: what it sent (`key`: the ping's body or the monitor's name), the reply,
 * the phase when it was answered and the phase when it was sent.
 */
type Seen = { kind: 'ping' | 'write'; key: string; status: number; body: string; phase: string; sent: string };

/** A Pharos on a PostgreSQL of its own, a healthcheck and three monitors checking a local target. */
async function setUp(t: TestContext): Promise<{ pg: TestPostgres; p: TestPharos; hc: { uuid: string }; targetUrl: string }> {
  const pg = await startPostgres();
  const p = await startTestPharos({ storage: { driver: 'postgres', postgres_url: pg.url, pings_per_healthcheck: 10000, postgres_statement_timeout_ms: 2000 } }, systemClock);
  const target = await httpTarget(200);
  t.after(async () => {
    await p.cleanup();
    await target.stop();
    await pg.cleanup();
  });
  const hc = (await (await p.api('/v1/healthchecks', { method: 'POST', json: { name: 'job', period_value: 1, period_type: 'hours', grace_period_value: 5, grace_period_type: 'minutes' } })).json()).healthcheck;
  for (let i = 0; i < 3; i++) assert.equal((await p.api('/v1/monitors', { method: 'POST', json: { name: `m${i}`, url: target.url, check_frequency: 10 } })).status, 201);
  return { pg, p, hc, targetUrl: target.url };
}

/**
 * Load: two loops of pings (each with a unique body) and one of monitor creations, one request after
 * another per loop, until `stop()`. Each answer is kept with the phase it was sent in.
 */
function startLoad(p: TestPharos, hcUuid: string, targetUrl: string) {
  const seen: Seen[] = [];
  const state = { phase: 'before', running: true };
  let n = 0;
  const pause = () => new Promise((r) => setTimeout(r, 20));
  const pinger = async () => {
    while (state.running) {
      const key = `ping-${++n}`;
      const sent = state.phase;
      const res = await fetch(`${p.url}/ping/${hcUuid}`, { method: 'POST', body: key });
      const body = await res.text();
      seen.push({ kind: 'ping', key, status: res.status, body, phase: state.phase, sent });
      await pause();
    }
  };
  const writer = async () => {
    while (state.running) {
      const key = `w-${++n}`;
      const sent = state.phase;
      const res = await p.api('/v1/monitors', { method: 'POST', json: { name: key, url: targetUrl, paused: true } });
      const body = await res.text();
      seen.push({ kind: 'write', key, status: res.status, body, phase: state.phase, sent });
      await pause();
    }
  };
  const load = Promise.all([pinger(), pinger(), writer()]);
  return {
    seen,
    state,
    async stop() {
      state.running = false;
      await load;
    },
  };
}

/** One outage of `ms`: PostgreSQL stopped (fast shutdown) until both kinds of request answered 503 and `ms` passed, then started until both are stored again. */
async function outage(pg: TestPostgres, load: ReturnType<typeof startLoad>, ms: number, name: string): Promise<number> {
  const { seen, state } = load;
  load.state.phase = `down${name}`;
  await pg.stop();
  const downAt = Date.now();
  await waitFor('503s while PostgreSQL is down', async () => seen.some((s) => s.phase === `down${name}` && s.kind === 'ping' && s.status === 503) && seen.some((s) => s.phase === `down${name}` && s.kind === 'write' && s.status === 503));
  await new Promise((r) => setTimeout(r, Math.max(0, ms - (Date.now() - downAt))));
  state.phase = `restarting${name}`;
  await pg.start();
  await waitFor('writes stored again', async () => seen.some((s) => s.phase === `restarting${name}` && s.kind === 'write' && s.status === 201), 30_000);
  await waitFor('pings stored again', async () => seen.some((s) => s.phase === `restarting${name}` && s.kind === 'ping' && s.status === 200), 30_000);
  state.phase = `after${name}`;
  await waitFor('load keeps being stored after the outage', async () => seen.filter((s) => s.phase === `after${name}` && (s.status === 200 || s.status === 201)).length >= 20);
  return downAt;
}

/**
 * Every answer says what was stored: only 200/201 (stored) and 503 (not stored, or "may not be"),
 * never a 500; every acknowledged ping and write is stored, nothing answered "not saved" is. A write
 * whose COMMIT was at the server when it stopped may have been saved: it says so
 * (`store.outcome_unknown`, pg/driver.ts), never "not saved".
 */
function assertAnswersTrue(t: TestContext, p: TestPharos, seen: Seen[]): void {
  assert.deepEqual([...new Set(seen.map((s) => s.status))].sort(), [200, 201, 503]);
  const unknown = (s: Seen) => s.status === 503 && (s.kind === 'write' ? JSON.parse(s.body).code === 'store.outcome_unknown' : s.body.startsWith('Ping may not be stored'));
  for (const s of seen.filter((x) => x.kind === 'write' && x.status === 503)) {
    const body = JSON.parse(s.body);
    assert.deepEqual(body, { error: body.message, message: body.message, code: unknown(s) ? 'store.outcome_unknown' : 'store.unavailable' });
  }
  assert.equal(seen.filter((s) => s.sent.startsWith('after') && s.phase === s.sent && s.status === 503).length, 0, 'no 503 once recovered');
  const bodies = new Set(rawDb(p.store).prepare<[], { body: string }>('SELECT body FROM pings').all().map((r) => r.body));
  const names = new Set(p.store.monitors.list().map((m) => m.name));
  for (const s of seen.filter((x) => !unknown(x))) {
    if (s.kind === 'ping') assert.equal(bodies.has(s.key), s.status === 200, `${s.key} answered ${s.status} (${s.phase}): ${s.body}`);
    else assert.equal(names.has(s.key), s.status === 201, `${s.key} answered ${s.status} (${s.phase}): ${s.body}`);
  }
  t.diagnostic(`${seen.filter(unknown).length} of ${seen.length} answered "outcome unknown" (their COMMIT was at the server when it stopped)`);
}

test('PostgreSQL down for 30 s under load: 503s with the JSON error, no 200 for a ping that was not stored, full recovery after', { timeout: 180_000, skip: ONCE_IN_POSTGRES_MATRIX }, async (t) => {
  const { pg, p, hc, targetUrl } = await setUp(t);
  const load = startLoad(p, hc.uuid, targetUrl);
  await waitFor('load is stored before the outage', async () => load.seen.filter((s) => s.status === 200).length >= 10);
  const downAt = await outage(pg, load, OUTAGE_MS, '');
  await load.stop();

  assert.ok(load.seen.filter((s) => s.phase === 'down').length > 50, `load kept coming during the outage (${load.seen.filter((s) => s.phase === 'down').length} requests)`);
  assertAnswersTrue(t, p, load.seen);
  // The checks made through the outage reach the database once it is back (the write buffer kept them).
  const id = p.store.monitors.list().find((m) => m.name === 'm0')!.id;
  await waitFor('a check result from the outage is stored', async () => {
    await p.core.checks.flush();
    return p.store.checks.latestResults(id, 100).some((r) => r.at > downAt + 1000 && r.at < downAt + OUTAGE_MS - 1000);
  });
});

// The CI run on fee8b45 met, once, a monitor answered 503 "not saved" that existed (its COMMIT was
// at the server when it shut down; then a read for the answer failed after the commit). One outage
// meets that moment rarely: ten short ones under the same load meet it more often.
test('PostgreSQL stopped ten times for 1.5 s under load: every answer says what was stored', { timeout: 300_000, skip: ONCE_IN_POSTGRES_MATRIX }, async (t) => {
  const { pg, p, hc, targetUrl } = await setUp(t);
  const load = startLoad(p, hc.uuid, targetUrl);
  await waitFor('load is stored before the outages', async () => load.seen.filter((s) => s.status === 200).length >= 10);
  for (let i = 1; i <= 10; i++) await outage(pg, load, 1500, String(i));
  await load.stop();
  assertAnswersTrue(t, p, load.seen);
});
