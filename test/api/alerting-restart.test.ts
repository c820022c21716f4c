import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir, testDatabaseUrl } from '../support/pharos.ts';
import { freePort, spawnPharos, waitFor, type PharosProcess } from '../support/process.ts';
import { httpReceiver } from '../support/receivers.ts';

// The outbox across a SIGKILL, with a real `pharos serve` process on the real clock: an alert that
// was pending when the process died is delivered after the restart, and one that was delivered is
// not sent again.
const TOKEN = 'alerting-restart-token-0123456789';
const dataDir = tempDir();
const cleanups: Array<() => unknown> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
  rmSync(dataDir, { recursive: true, force: true });
});

test('SIGKILL loses no pending alert and re-sends nothing delivered', { timeout: 90_000 }, async () => {
  const hooks = await httpReceiver();
  cleanups.push(hooks.close);
  const configFile = join(dataDir, 'config.yaml');
  writeFileSync(
    configFile,
    [
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
  const env = { PHAROS_LISTEN: `127.0.0.1:${port}`, PHAROS_DATA_DIR: dataDir, PHAROS_ADMIN_TOKEN: TOKEN, PHAROS_CONFIG: configFile, PHAROS_DATABASE_URL: (await testDatabaseUrl(dataDir)) ?? '' };
  let proc: PharosProcess = await spawnPharos(env);
  cleanups.push(() => proc.child.kill('SIGKILL'));
  const report = async (description: string) => {
    const res = await fetch(`${proc.url}/v2/outages`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ description, escalationPolicyUuid: 'ep_now' }),
    });
    assert.equal(res.status, 200);
    return ((await res.json()) as { outage: { uuid: string } }).outage.uuid;
  };
  const deliveredFor = (uuid: string) => hooks.delivered('/hook').filter((b) => b.outage.uuid === uuid).length;
  const attemptsFor = (uuid: string) => hooks.received.filter((r) => JSON.parse(r.body).outage.uuid === uuid).length;

  const first = await report('delivered before the kill');
  await waitFor('the first alert', async () => deliveredFor(first) === 1);

  hooks.state.answer = () => 503;
  const second = await report('pending at the kill');
  await waitFor('a failed attempt of the second alert', async () => attemptsFor(second) >= 1);
  proc.child.kill('SIGKILL');
  await proc.exited;
  assert.equal(deliveredFor(second), 0, 'not delivered before the kill');

  hooks.state.answer = () => 200;
  proc = await spawnPharos(env);
  await waitFor('the pending alert after restart', async () => deliveredFor(second) === 1);
  // SIGTERM waits for deliveries in flight, and every row still due was claimed at start: whatever
  // the restarted process would (wrongly) re-send has reached the receiver — answered 200 now, and
  // counted whatever the answer.
  proc.child.kill('SIGTERM');
  await proc.exited;
  assert.equal(attemptsFor(first), 1, 'the alert delivered before the kill was never sent again');
  assert.equal(deliveredFor(second), 1, 'and the pending one was delivered exactly once');
});
