import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { ONCE_IN_SQLITE_RUN, tempDir, testDatabaseUrl, type JsonResponse } from '../support/pharos.ts';
import { freePort, spawnPharos, waitFor } from '../support/process.ts';

// End to end on the real clock (the one real-time healthcheck test; the slowest of the suite):
// a `pharos serve` process, a healthcheck with a 10 s period and a 60 s grace period, one ping.
const TOKEN = 'realtime-test-token-0123456789';
const dataDir = tempDir();
const cleanups: Array<() => unknown> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
  rmSync(dataDir, { recursive: true, force: true });
});

test('a healthcheck with a 10 s period and 60 s grace goes down 70 s after its last ping, not before', { timeout: 150_000, skip: ONCE_IN_SQLITE_RUN }, async () => {
  const port = await freePort();
  const proc = await spawnPharos({ PHAROS_LISTEN: `127.0.0.1:${port}`, PHAROS_DATA_DIR: dataDir, PHAROS_ADMIN_TOKEN: TOKEN, PHAROS_PUBLIC_URL: `http://127.0.0.1:${port}`, PHAROS_DATABASE_URL: (await testDatabaseUrl(dataDir)) ?? '' });
  cleanups.push(() => proc.child.kill('SIGKILL'));
  const api = (path: string, init: RequestInit = {}) =>
    fetch(proc.url + path, { ...init, headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' } }) as Promise<JsonResponse>;

  const created = await api('/v1/healthchecks', {
    method: 'POST',
    body: JSON.stringify({ name: 'every 10 s', period_value: 10, period_type: 'seconds', grace_period_value: 60, grace_period_type: 'seconds' }),
  });
  assert.equal(created.status, 201);
  const { healthcheck } = await created.json();
  const res = await fetch(healthcheck.pingUrl);
  assert.equal(res.status, 200, 'the ping URL the API gives works');
  assert.equal(await res.text(), 'OK');
  const lastPing = Date.parse((await (await api(`/v1/healthchecks/${healthcheck.uuid}`)).json()).lastPing);
  const deadline = lastPing + 70_000;

  // Poll the API: every answer received before the deadline says up (the server read its state
  // before then); the first down answer is received after it. A request sent just before the
  // deadline and answered after it proves nothing either way, so it is not counted as "before".
  const upBeforeDeadline: boolean[] = [];
  let downAnsweredAt = 0;
  const down = await waitFor('the healthcheck to go down', async () => {
    const hc = await (await api(`/v1/healthchecks/${healthcheck.uuid}`)).json();
    const answered = Date.now();
    if (answered < deadline) upBeforeDeadline.push(!hc.isDown);
    if (hc.isDown) downAnsweredAt = answered;
    return hc.isDown ? hc : null;
  }, 120_000);
  assert.ok(upBeforeDeadline.length > 0 && upBeforeDeadline.every(Boolean), 'never down before due + grace');
  assert.equal(down.isDown, true);
  assert.ok(downAnsweredAt >= deadline, 'the down answer came after the deadline');

  const outages = (await (await api('/v2/outages')).json()).outages;
  assert.equal(outages.length, 1);
  assert.equal(outages[0].startDate, new Date(deadline).toISOString(), 'the outage starts at last ping + 10 s + 60 s');
  assert.equal(outages[0].monitor.url, healthcheck.pingUrl);

  assert.equal((await fetch(healthcheck.pingUrl, { method: 'POST', body: 'back' })).status, 200);
  const resolved = (await (await api('/v2/outages')).json()).outages[0];
  assert.equal(resolved.isResolved, true, 'the next ping resolves it');
  proc.child.kill('SIGTERM');
  await proc.exited;
});
