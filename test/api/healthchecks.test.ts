import { afterEach, describe, test } from 'node:test';
import { sqliteOf } from '../../src/store/db.ts';
import assert from 'node:assert/strict';
import { ManualClock } from '../support/manual-clock.ts';
import { startTestPharos, tempDir, type TestPharos } from '../support/pharos.ts';
import { rawDb } from '../../src/store/index.ts';

// A real server over HTTP, a real SQLite file, and a manual clock: deadlines are exact, nothing sleeps.
const MIN = 60_000;
const HOUR = 60 * MIN;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function setup(config: Record<string, unknown> = {}, clock = new ManualClock()): Promise<TestPharos> {
  const p = await startTestPharos(config, clock);
  cleanups.push(() => p.cleanup());
  return p;
}

async function create(p: TestPharos, json: Record<string, unknown>) {
  const res = await p.api('/v1/healthchecks', { method: 'POST', json: { name: 'backup', grace_period_value: 5, grace_period_type: 'minutes', ...json } });
  assert.equal(res.status, 201, await res.clone().text());
  const body = await res.json();
  assert.equal(body.message, 'Healthcheck created');
  return body.healthcheck as { uuid: string; publicUuid: string; pingUrl: string; dueDate: string };
}
const get = async (p: TestPharos, uuid: string) => (await p.api(`/v1/healthchecks/${uuid}`)).json();
const ping = (p: TestPharos, uuid: string, suffix = '', init: RequestInit = {}) => fetch(`${p.url}/ping/${uuid}${suffix}`, init);
const outagesOf = async (p: TestPharos, uuid: string) => {
  const page = await (await p.api('/v2/outages')).json();
  return page.outages.filter((o: { monitor: { uuid: string } | null }) => o.monitor?.uuid === uuid);
};
const iso = (ms: number) => new Date(ms).toISOString();
/** The newest ping's details (`lastPing` itself is a date-time, as the hosted service's clients read it). */
const lastPingOf = async (p: TestPharos, uuid: string) => (await (await p.api(`/v1/healthchecks/${uuid}/pings`)).json()).pings[0];

describe('healthchecks API', () => {
  test('create answers 201 {message, healthcheck} with every field; get, list, v2 shapes, delete', async () => {
    const p = await setup({ public_url: 'https://pharos.example.com/' });
    const t0 = p.clock.now();
    const hc = await create(p, { period_value: 1, period_type: 'days', timezone: 'Europe/Berlin' });
    assert.match(hc.uuid, /^tok_[0-9A-Za-z]{22}$/);
    assert.match(hc.publicUuid, /^hc_[0-9A-Za-z]{22}$/);
    const got = await get(p, hc.uuid);
    assert.deepEqual(got, {
      uuid: hc.uuid,
      publicUuid: hc.publicUuid,
      name: 'backup',
      pingUrl: `https://pharos.example.com/ping/${hc.uuid}`,
      period: 86_400,
      periodValue: 1,
      periodType: 'days',
      gracePeriod: 300,
      gracePeriodValue: 5,
      gracePeriodType: 'minutes',
      grace: 300,
      cron: null,
      timezone: 'Europe/Berlin',
      tz: 'Europe/Berlin',
      isDown: false,
      isPaused: false,
      lastPing: null,
      dueDate: iso(t0 + 24 * HOUR),
      createdAt: iso(t0),
      escalationPolicy: null,
      slug: null,
      lastLogStartDate: null,
      lastLogEndDate: null,
      lastDowntime: null,
    });
    assert.deepEqual(await get(p, hc.publicUuid), got, 'the public uuid finds it too');
    assert.deepEqual(await (await p.api('/v1/healthchecks')).json(), [got]);
    assert.deepEqual(await (await p.api('/v2/healthchecks')).json(), { healthchecks: [got] });
    assert.deepEqual(await (await p.api(`/v2/healthchecks/${hc.uuid}`)).json(), { ...got, healthcheck: got }, 'v2: the fields, and the same object under healthcheck');
    const v2 = await p.api('/v2/healthchecks', { method: 'POST', json: { name: 'v2', period_value: 10, period_type: 'minutes', grace_period_value: 1, grace_period_type: 'hours' } });
    assert.equal(v2.status, 201);
    assert.equal((await v2.json()).healthcheck.period, 600);

    const del = await p.api(`/v1/healthchecks/${hc.uuid}`, { method: 'DELETE' });
    assert.deepEqual(await del.json(), { message: 'Healthcheck deleted', uuid: hc.uuid });
    assert.equal((await p.api(`/v1/healthchecks/${hc.uuid}`)).status, 404);
    assert.equal((await ping(p, hc.uuid)).status, 404, 'a deleted healthcheck takes no pings');
  });

  test('PUT replaces settings and may switch mode; the clock is kept', async () => {
    const p = await setup();
    const t0 = p.clock.now();
    const hc = await create(p, { period_value: 1, period_type: 'hours' });
    const res = await p.api(`/v1/healthchecks/${hc.uuid}`, { method: 'PUT', json: { name: 'nightly', cron: '0 3 * * *', timezone: 'UTC', grace_period_value: 2, grace_period_type: 'hours' } });
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.equal(body.name, 'nightly');
    assert.equal(body.cron, '0 3 * * *');
    assert.equal(body.period, null);
    assert.equal(body.periodValue, null);
    assert.equal(body.gracePeriod, 7200);
    assert.equal(body.dueDate, '2026-01-02T03:00:00.000Z', 'the next 03:00 after the clock start (creation at 12:00)');
    const back = await (await p.api(`/v1/healthchecks/${hc.uuid}`, { method: 'PUT', json: { name: 'n', grace_period_value: 1, grace_period_type: 'hours' } })).json();
    assert.equal(back.cron, '0 3 * * *', 'a body naming neither mode keeps the current one');
    const simple = await (await p.api(`/v1/healthchecks/${hc.uuid}`, { method: 'PUT', json: { name: 'n', period_value: 30, period_type: 'minutes', grace_period_value: 1, grace_period_type: 'hours' } })).json();
    assert.equal(simple.cron, null);
    assert.equal(simple.dueDate, iso(t0 + 30 * MIN));
  });

  test('every validation rule answers 400 naming the field', async () => {
    const p = await setup();
    const base = { name: 'x', grace_period_value: 5, grace_period_type: 'minutes' };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...base, cron: '61 * * * *' }, 'cron'],
      [{ ...base, cron: 'every day' }, 'cron'],
      [{ ...base, cron: '0 0 30 2 *' }, 'cron'],
      [{ ...base, cron: '0 2 * * *', timezone: 'Mars/Olympus_Mons' }, 'timezone'],
      [{ ...base, cron: '0 2 * * *', timezone: '+01:00' }, 'timezone'],
      [{ ...base, period_value: 1, period_type: 'hours', cron: '0 2 * * *' }, 'cron'],
      [{ ...base }, 'period_value'],
      [{ ...base, period_value: 1 }, 'period_type'],
      [{ ...base, period_type: 'hours' }, 'period_value'],
      [{ ...base, period_value: 1, period_type: 'weeks' }, 'period_type'],
      [{ ...base, period_value: -1, period_type: 'hours' }, 'period_value'],
      [{ ...base, period_value: 1.5, period_type: 'hours' }, 'period_value'],
      [{ ...base, period_value: 366, period_type: 'days' }, 'period_value'],
      [{ ...base, period_value: 1, period_type: 'hours', grace_period_value: 59, grace_period_type: 'seconds' }, 'grace_period_value'],
      [{ ...base, period_value: 1, period_type: 'hours', grace_period_value: -5 }, 'grace_period_value'],
      [{ ...base, period_value: 1, period_type: 'hours', grace_period_type: 'fortnights' }, 'grace_period_type'],
      [{ name: 'x', period_value: 1, period_type: 'hours' }, 'grace_period_value'],
      [{ ...base, name: '', period_value: 1, period_type: 'hours' }, 'name'],
      [{ ...base, period_value: '1', period_type: 'hours' }, 'period_value'],
      [{ ...base, period_value: 1, period_type: 'hours', escalation_policy: 'ep_nope' }, 'escalation_policy'],
    ];
    for (const [json, field] of cases) {
      const res = await p.api('/v1/healthchecks', { method: 'POST', json });
      assert.equal(res.status, 400, JSON.stringify(json));
      const body = await res.json();
      assert.ok(body.error.startsWith(`${field}:`), `${JSON.stringify(json)} → ${body.error}`);
    }
    assert.deepEqual(await (await p.api('/v1/healthchecks')).json(), [], 'no half-written record');
    const grace60 = await p.api('/v1/healthchecks', { method: 'POST', json: { ...base, period_value: 1, period_type: 'hours', grace_period_value: 60, grace_period_type: 'seconds' } });
    assert.equal(grace60.status, 201, 'grace 60 s is the minimum');
  });

  test('401 without a token, 403 for a read token on writes, 404 for unknown uuids', async () => {
    const p = await setup();
    const read = (await p.core.users.createToken({ email: 'r@example.com', name: 'R', scope: 'read' }, { type: 'system', id: 'test', name: 'test' })).token;
    assert.equal((await p.api('/v1/healthchecks', { token: null })).status, 401);
    assert.equal((await p.api('/v1/healthchecks', { token: read })).status, 200);
    const res = await p.api('/v1/healthchecks', { method: 'POST', token: read, json: { name: 'x', period_value: 1, period_type: 'hours', grace_period_value: 5, grace_period_type: 'minutes' } });
    assert.equal(res.status, 403);
    const hc = await create(p, { period_value: 1, period_type: 'hours' });
    assert.equal((await p.api(`/v1/healthchecks/${hc.uuid}/pause`, { method: 'POST', token: read })).status, 403);
    for (const path of ['/v1/healthchecks/tok_missing', '/v1/healthchecks/tok_missing/pings']) assert.equal((await p.api(path)).status, 404);
    assert.equal((await p.api('/v1/healthchecks/tok_missing/resume', { method: 'POST' })).status, 404);
  });
});

describe('ping endpoint', () => {
  test('HEAD, GET and POST answer 200 OK without credentials; other methods 405; unknown tokens and signals 404', async () => {
    const p = await setup();
    const hc = await create(p, { period_value: 1, period_type: 'hours' });
    for (const method of ['HEAD', 'GET', 'POST']) {
      const res = await ping(p, hc.uuid, '', { method });
      assert.equal(res.status, 200, method);
      if (method !== 'HEAD') assert.equal(await res.text(), 'OK');
    }
    const put = await ping(p, hc.uuid, '', { method: 'PUT' });
    assert.equal(put.status, 405);
    assert.equal(put.headers.get('allow'), 'GET, HEAD, POST');
    assert.equal((await ping(p, 'tok_doesnotexist0000000000')).status, 404);
    assert.equal((await ping(p, hc.uuid, '/256')).status, 404);
    assert.equal((await ping(p, hc.uuid, '/finish')).status, 404);
    const pings = (await (await p.api(`/v1/healthchecks/${hc.uuid}/pings`)).json()).pings;
    assert.deepEqual(pings.map((x: { method: string; n: number }) => [x.n, x.method]), [[3, 'POST'], [2, 'GET'], [1, 'HEAD']]);
    assert.equal(pings[0].sourceIp.replace('::ffff:', ''), '127.0.0.1');
  });

  test('a POST body is stored up to 10 KB; a larger one is cut, never refused', async () => {
    const p = await setup();
    const hc = await create(p, { period_value: 1, period_type: 'hours' });
    assert.equal((await ping(p, hc.uuid, '', { method: 'POST', body: 'rsync: 42 files, 3 MB', headers: { 'user-agent': 'curl/8' } })).status, 200);
    const last = await lastPingOf(p, hc.uuid);
    assert.equal((await get(p, hc.uuid)).lastPing, last.date, 'lastPing is the date-time of the newest ping');
    assert.equal(last.body, 'rsync: 42 files, 3 MB');
    assert.equal(last.userAgent, 'curl/8');
    assert.equal(last.type, 'success');
    const big = 'x'.repeat(2 * 1024 * 1024);
    assert.equal((await ping(p, hc.uuid, '', { method: 'POST', body: big })).status, 200, 'a 2 MB body is accepted');
    assert.equal((await lastPingOf(p, hc.uuid)).body.length, 10 * 1024);
  });

  test('only the newest storage.pings_per_healthcheck pings are kept', async () => {
    const p = await setup({ storage: { pings_per_healthcheck: 3 } });
    const hc = await create(p, { period_value: 1, period_type: 'hours' });
    for (let i = 0; i < 5; i++) assert.equal((await ping(p, hc.uuid)).status, 200);
    const pings = (await (await p.api(`/v1/healthchecks/${hc.uuid}/pings`)).json()).pings;
    assert.deepEqual(pings.map((x: { n: number }) => x.n), [5, 4, 3]);
    assert.equal((rawDb(p.store).prepare('SELECT count(*) AS n FROM pings').get() as { n: number }).n, 3);
  });

  test('pings of one event-loop turn share one transaction: each stored once, numbered in order, the newest N kept', async () => {
    const p = await setup({ storage: { pings_per_healthcheck: 3 } });
    const [a, b, c] = [await create(p, { period_value: 1, period_type: 'hours' }), await create(p, { period_value: 1, period_type: 'hours' }), await create(p, { period_value: 1, period_type: 'hours' })];
    const at = p.clock.now();
    const signal = (kind: 'success' | 'start' | 'fail', offset = 0) => ({ kind, exitCode: null, at: at + offset, method: 'GET', sourceIp: '127.0.0.1', userAgent: null, body: null });
    // Submitted in one turn: one batch of 91 pings, whose rows go out as multi-row INSERTs (64 + 16 + 4 + 4 + 1 + 1 + 1).
    const pending = [];
    for (let i = 0; i < 88; i++) pending.push(p.core.healthchecks.ping(i % 2 ? a.uuid : b.uuid, signal('success', i)));
    pending.push(p.core.healthchecks.ping(c.uuid, signal('start')), p.core.healthchecks.ping(c.uuid, signal('success', 5000)));
    pending.push(p.core.healthchecks.ping('tok_unknown0000000000000000', signal('success')));
    const stored = await Promise.all(pending);
    assert.equal(stored.at(-1), null, 'an unknown token in the batch stores nothing');
    assert.deepEqual(stored.slice(0, 88).map((s) => s?.n), Array.from({ length: 88 }, (_, i) => (i >> 1) + 1), 'each healthcheck numbers its pings 1, 2, 3… in arrival order');
    const kept = async (uuid: string) => (await (await p.api(`/v1/healthchecks/${uuid}/pings`)).json()).pings as Array<{ n: number; date: string; type: string; durationMs: number | null }>;
    assert.deepEqual((await kept(a.uuid)).map((x) => [x.n, x.date]), [44, 43, 42].map((n) => [n, iso(at + 2 * n - 1)]), 'the newest 3, pruned after the batch was written');
    assert.deepEqual((await kept(b.uuid)).map((x) => x.n), [44, 43, 42]);
    assert.deepEqual((await kept(c.uuid)).map((x) => [x.n, x.type, x.durationMs]), [[2, 'success', 5000], [1, 'start', null]], 'a success after a start of the same batch gets its duration');
    assert.equal((rawDb(p.store).prepare('SELECT count(*) AS n FROM pings').get() as { n: number }).n, 8);
    assert.equal((await get(p, a.uuid)).lastPing, iso(at + 87));
  });

  test('a flood of unknown tokens writes nothing', async () => {
    const p = await setup();
    const hc = await create(p, { period_value: 1, period_type: 'hours' });
    await ping(p, hc.uuid);
    // SQLite: no page and no WAL frame written. PostgreSQL: no row of the tables a ping touches was
    // inserted, updated or deleted (each row's xmin names the transaction that wrote it). Not the
    // cluster's next transaction id: the instance's own heartbeat (cluster_instances) takes ids meanwhile.
    const lite = sqliteOf(rawDb(p.store));
    lite?.pragma('wal_checkpoint(TRUNCATE)');
    const rowVersions = (table: string) => rawDb(p.store).prepare<[], { v: string | null }>(`SELECT string_agg(CAST(xmin AS text), ',' ORDER BY CAST(xmin AS text)) AS v FROM ${table}`).get()!.v;
    const writes = () =>
      lite
        ? [lite.pragma('page_count', { simple: true }), (lite.pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number }>)[0]!.log]
        : ['pings', 'healthchecks', 'healthcheck_flips', 'outages', 'outage_events', 'counters', 'alerts'].map(rowVersions);
    const before = writes();
    const statuses = new Set<number>();
    for (let batch = 0; batch < 20; batch++) {
      const res = await Promise.all(Array.from({ length: 100 }, (_, i) => ping(p, `tok_unknown${batch}x${i}`, '', { method: 'POST', body: 'spam' })));
      for (const r of res) statuses.add(r.status);
    }
    assert.deepEqual([...statuses], [404]);
    assert.deepEqual(writes(), before, 'nothing was written');
    assert.equal((rawDb(p.store).prepare('SELECT count(*) AS n FROM pings').get() as { n: number }).n, 1);
  });
});

describe('deadlines (manual clock)', () => {
  test('simple period: up until one millisecond past due + grace, then down with an outage; a ping resolves it', async () => {
    const p = await setup();
    const t0 = p.clock.now();
    const hc = await create(p, { period_value: 1, period_type: 'hours', grace_period_value: 5, grace_period_type: 'minutes' });
    const deadline = t0 + HOUR + 5 * MIN;
    await p.advance(deadline - 1 - t0);
    assert.equal((await get(p, hc.uuid)).isDown, false, '1 ms before the deadline');
    await p.advance(1);
    assert.equal((await get(p, hc.uuid)).isDown, false, 'at the deadline exactly: late means strictly after');
    await p.advance(1);
    const down = await get(p, hc.uuid);
    assert.equal(down.isDown, true, '1 ms after the deadline');
    const [outage] = await outagesOf(p, hc.uuid);
    assert.equal(outage.startDate, iso(deadline));
    assert.equal(outage.isResolved, false);
    assert.equal(outage.protocol, 'healthcheck');
    assert.deepEqual(outage.monitor, { uuid: hc.uuid, name: 'backup', url: hc.pingUrl, protocol: 'healthcheck' });
    assert.match(outage.description, /No ping within 1 hour \+ 5 minutes grace \(no ping yet\)/);

    await p.advance(10 * MIN);
    const pingAt = p.clock.now();
    assert.equal((await ping(p, hc.uuid)).status, 200);
    const up = await get(p, hc.uuid);
    assert.equal(up.isDown, false);
    assert.equal(up.dueDate, iso(pingAt + HOUR), 'the clock restarts at the ping');
    const [resolved] = await outagesOf(p, hc.uuid);
    assert.equal(resolved.isResolved, true);
    assert.equal(resolved.endDate, iso(pingAt));
    assert.equal(resolved.durationMs, pingAt - deadline);
  });

  test('each ping moves the deadline: pinging in time never opens an outage', async () => {
    const p = await setup();
    const hc = await create(p, { period_value: 10, period_type: 'minutes', grace_period_value: 1, grace_period_type: 'minutes' });
    for (let i = 0; i < 6; i++) {
      await p.advance(11 * MIN);
      assert.equal((await ping(p, hc.uuid)).status, 200);
    }
    assert.equal((await get(p, hc.uuid)).isDown, false);
    assert.deepEqual(await outagesOf(p, hc.uuid), []);
    assert.equal(p.deadlines.timerAt(p.store.healthchecks.get(hc.uuid)!.id), p.clock.now() + 11 * MIN + 1);
  });

  test('fail and non-zero exit codes open the outage at once; exit code 0 resolves it; start measures the run', async () => {
    const p = await setup();
    const hc = await create(p, { period_value: 1, period_type: 'days' });
    await ping(p, hc.uuid, '/start');
    await p.advance(90_000);
    await ping(p, hc.uuid, '/fail');
    const down = await get(p, hc.uuid);
    assert.equal(down.isDown, true);
    const downPing = await lastPingOf(p, hc.uuid);
    assert.equal(downPing.type, 'fail');
    assert.equal(downPing.durationMs, 90_000, 'run duration since the start signal');
    let [outage] = await outagesOf(p, hc.uuid);
    assert.equal(outage.description, 'Job reported failure');
    assert.equal(outage.startDate, iso(p.clock.now()));

    await p.advance(MIN);
    await ping(p, hc.uuid, '/0');
    assert.equal((await get(p, hc.uuid)).isDown, false);
    [outage] = await outagesOf(p, hc.uuid);
    assert.equal(outage.isResolved, true);

    await ping(p, hc.uuid, '/3');
    const failed = await get(p, hc.uuid);
    assert.equal(failed.isDown, true);
    assert.equal((await lastPingOf(p, hc.uuid)).exitCode, 3);
    const open = (await outagesOf(p, hc.uuid)).filter((o: { isResolved: boolean }) => !o.isResolved);
    assert.equal(open.length, 1);
    assert.equal(open[0].description, 'Job exited with code 3');
  });

  test('pause stops deadlines and state changes; resume restarts the clock', async () => {
    const p = await setup();
    const hc = await create(p, { period_value: 1, period_type: 'hours', grace_period_value: 1, grace_period_type: 'minutes' });
    const paused = await p.api(`/v1/healthchecks/${hc.uuid}/pause`, { method: 'POST' });
    assert.deepEqual(await paused.json(), { message: 'Healthcheck paused', uuid: hc.uuid });
    assert.equal(p.deadlines.watchedCount, 0);
    await p.advance(5 * HOUR);
    await ping(p, hc.uuid, '/fail');
    const g = await get(p, hc.uuid);
    assert.equal(g.isPaused, true);
    assert.equal(g.isDown, false, 'a paused healthcheck records pings but changes no state');
    assert.equal(g.dueDate, null);
    assert.deepEqual(await outagesOf(p, hc.uuid), []);

    const resumedAt = p.clock.now();
    assert.equal((await p.api(`/v1/healthchecks/${hc.uuid}/resume`, { method: 'POST' })).status, 200);
    const r = await get(p, hc.uuid);
    assert.equal(r.isPaused, false);
    assert.equal(r.dueDate, iso(resumedAt + HOUR));
    await p.advance(HOUR + MIN);
    assert.equal((await get(p, hc.uuid)).isDown, false);
    await p.advance(1);
    assert.equal((await get(p, hc.uuid)).isDown, true);
  });

  test('cron 0 2 * * * in Europe/Berlin across the spring and autumn DST changes', async () => {
    // Saturday 28 March 2026, 12:00 UTC; the clocks go forward on Sunday 29 March at 02:00 local.
    const clock = new ManualClock(Date.UTC(2026, 2, 28, 12, 0, 0));
    const p = await setup({}, clock);
    const hc = await create(p, { cron: '0 2 * * *', timezone: 'Europe/Berlin', grace_period_value: 30, grace_period_type: 'minutes' });
    // 02:00 does not exist on 29 March: due at the first valid time after the gap, 03:00 CEST = 01:00 UTC.
    assert.equal((await get(p, hc.uuid)).dueDate, '2026-03-29T01:00:00.000Z');
    await p.advance(Date.UTC(2026, 2, 29, 1, 30, 0) - p.clock.now());
    assert.equal((await get(p, hc.uuid)).isDown, false, 'at due + grace exactly');
    await p.advance(1);
    assert.equal((await get(p, hc.uuid)).isDown, true);
    await ping(p, hc.uuid);
    // Next: 30 March 02:00 CEST = 00:00 UTC.
    assert.equal((await get(p, hc.uuid)).dueDate, '2026-03-30T00:00:00.000Z');

    // Autumn: 02:00 happens twice on 25 October (CEST, then CET); the job is due once, at the first.
    // A second server whose clock starts the day before (not the first one moved on by seven months:
    // thousands of hourly background timers, each a few round trips on PostgreSQL, ~70 s there).
    const a = await setup({}, new ManualClock(Date.UTC(2026, 9, 24, 12, 0, 0)));
    const autumn = await create(a, { cron: '0 2 * * *', timezone: 'Europe/Berlin', grace_period_value: 30, grace_period_type: 'minutes' });
    await ping(a, autumn.uuid);
    assert.equal((await get(a, autumn.uuid)).dueDate, '2026-10-25T00:00:00.000Z');
    await a.advance(Date.UTC(2026, 9, 25, 0, 5, 0) - a.clock.now());
    await ping(a, autumn.uuid);
    // Not the second 02:00 (01:00 UTC) but the next day's 02:00 CET = 01:00 UTC on 26 October.
    assert.equal((await get(a, autumn.uuid)).dueDate, '2026-10-26T01:00:00.000Z');
    await a.advance(Date.UTC(2026, 9, 25, 1, 31, 0) - a.clock.now());
    assert.equal((await get(a, autumn.uuid)).isDown, false, 'the repeated 02:00 is not a deadline');
  });

  test('restart: deadlines are rebuilt from the store; one that passed while stopped opens its outage at start', async () => {
    const dataDir = tempDir();
    const t0 = Date.UTC(2026, 0, 1, 12, 0, 0);
    const first = await startTestPharos({ data_dir: dataDir }, new ManualClock(t0));
    const late = await create(first, { period_value: 1, period_type: 'hours', grace_period_value: 1, grace_period_type: 'minutes' });
    const later = await create(first, { name: 'weekly', period_value: 7, period_type: 'days' });
    await first.close();

    const second = await setup({ data_dir: dataDir }, new ManualClock(t0 + 2 * HOUR));
    cleanups.push(async () => (await import('node:fs')).rmSync(dataDir, { recursive: true, force: true }));
    await second.advance(0);
    assert.equal((await get(second, late.uuid)).isDown, true, 'the missed deadline is seen right after start');
    const [outage] = await outagesOf(second, late.uuid);
    assert.equal(outage.startDate, iso(t0 + HOUR + MIN));
    assert.equal((await get(second, later.uuid)).isDown, false);
    assert.equal(second.deadlines.timerAt(second.store.healthchecks.get(later.uuid)!.id), t0 + 7 * 24 * HOUR + 5 * MIN + 1);
  });
});
