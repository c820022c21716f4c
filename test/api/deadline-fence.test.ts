import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { systemClock } from '../../src/lib/clock.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { startTestPharos } from '../support/pharos.ts';
import { startPostgres, type TestPostgres } from '../support/postgres.ts';
import { waitFor } from '../support/process.ts';

// Issue 31, fencing of healthcheck deadlines (PostgreSQL only: SQLite has one instance, always the
// leader): a missed deadline's outage is a leader write, its procedure (healthchecks.checkDeadline)
// checks the lease's epoch in the same transaction. With the epoch moved on by another instance, the
// check writes nothing and the instance stops leading.

let pgsql: TestPostgres;
before(async () => {
  pgsql = await startPostgres('deadline-fence');
});
after(async () => {
  await pgsql?.cleanup();
});

test('a deadline check carrying a stale epoch opens no outage and ends the leadership', { timeout: 60_000 }, async () => {
  const lines: string[] = [];
  const url = await pgsql.createDatabase('fence');
  const p = await startTestPharos({ storage: { driver: 'postgres', postgres_url: url } }, systemClock, createLogger('info', (l) => void lines.push(l), 'json'));
  const other = new pg.Client({ connectionString: url, application_name: 'pharos ins_other' });
  try {
    await waitFor('p to lead', async () => p.cluster.isLeader);
    const created = (await (await p.api('/v1/healthchecks', { method: 'POST', json: { name: 'nightly', period_value: 1, period_type: 'hours', grace_period_value: 1, grace_period_type: 'minutes' } })).json()) as { healthcheck: { uuid: string } };
    const uuid = created.healthcheck.uuid;

    // Another instance takes the lease over; the healthcheck's last ping was two hours ago.
    await other.connect();
    await other.query("UPDATE leader_lease SET holder = 'ins_other', holder_pid = pg_backend_pid(), epoch = epoch + 1, expires_at = now() + interval '1 hour'");
    await other.query('UPDATE healthchecks SET clock_start_at = $1 WHERE uuid = $2', [Date.now() - 2 * 3_600_000, uuid]);
    // What a relayed change would tell the deadlines: the deadline passed, its timer fires at once.
    p.core.bus.emit('healthcheck.changed', { healthcheck: await p.core.healthchecks.get(uuid) });

    await waitFor('the refused deadline check to end the leadership', async () => !p.cluster.isLeader, 10_000);
    await p.deadlines.settled();
    const hc = await p.core.healthchecks.get(uuid);
    assert.equal(hc.status, 'up', 'the stale leader did not flip the healthcheck');
    const outages = await other.query('SELECT count(*)::int AS n FROM outages');
    assert.equal(outages.rows[0].n, 0, 'nor open its outage');
    assert.ok(lines.some((l) => /no longer the leader \(a write was refused/.test(l)), lines.join('\n'));
  } finally {
    await other.end().catch(() => {});
    await p.cleanup();
  }
});
