import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { startTestPharos, tempDir } from '../support/pharos.ts';
import { httpReceiver } from '../support/receivers.ts';

// `pharos alert test CHANNEL` from source against a real receiver, and the core function the
// console's "send test alert" button calls.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);
const rx = await httpReceiver();
after(() => rx.close());

const dir = tempDir();
const configFile = join(dir, 'config.yaml');
writeFileSync(
  configFile,
  `data_dir: ${join(dir, 'data')}
public_url: https://pharos.example.com
channels:
  - name: ops-slack
    type: slack
    url: ${rx.url}/slack/SECRET
  - name: pager
    type: pagerduty
    routing_key: rk-SECRET
    api_url: ${rx.url}/pd
  - name: refused
    apprise: json://${rx.url.slice('http://'.length)}/refused
`,
);

async function pharos(...args: string[]) {
  try {
    const r = await run(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args, '--config', configFile], { cwd: ROOT, env: { ...process.env, PHAROS_CONFIG: '' } });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

test('alert test delivers a sample and prints the answer; PagerDuty gets the resolve too', { timeout: 60_000 }, async () => {
  rx.state.answer = (path) => (path.startsWith('/refused') ? 400 : path.startsWith('/pd') ? 202 : 200);
  const slack = await pharos('alert', 'test', 'ops-slack');
  assert.equal(slack.code, 0, slack.stderr);
  assert.equal(slack.stdout, 'ops-slack (slack): alert → 200 ok\n');
  const body = JSON.parse(rx.received.find((r) => r.path === '/slack/SECRET')!.body);
  assert.match(body.text, /^TEST DOWN: Pharos test alert/);

  const pd = await pharos('alert', 'test', 'pager');
  assert.equal(pd.code, 0, pd.stderr);
  assert.equal(pd.stdout, 'pager (pagerduty): alert → 202 ok\npager (pagerduty): recovery → 202 ok\n');
  const events = rx.received.filter((r) => r.path === '/pd/v2/enqueue').map((r) => JSON.parse(r.body));
  assert.deepEqual(events.map((e) => e.event_action), ['trigger', 'resolve']);
  assert.equal(events[0].dedup_key, events[1].dedup_key);

  const refused = await pharos('alert', 'test', 'refused');
  assert.equal(refused.code, 1);
  assert.equal(refused.stdout, '');
  assert.equal(refused.stderr, 'refused (webhook): alert → 400 ok\nrefused: delivery failed: webhook refused: HTTP 400\n');

  const unknown = await pharos('alert', 'test', 'nope');
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /No channel named "nope" \(channels: ops-slack, pager, refused\)/);
});

test('core.channels: list without secrets, test through the running server, 404 for an unknown name', async () => {
  const p = await startTestPharos({ channels: [{ name: 'hook', type: 'webhook', url: `${rx.url}/core-hook`, headers: { authorization: 'Bearer SECRET' } }] });
  try {
    rx.state.answer = () => 204;
    assert.deepEqual(await p.core.channels.list(), [{ name: 'hook', type: 'webhook' }]);
    const result = await p.core.channels.test('hook');
    // The webhook follows an outage's lifecycle (issue 32): its test closes with the recovery, like PagerDuty's.
    assert.deepEqual(result, { channel: 'hook', type: 'webhook', ok: true, answers: [{ kind: 'alert', status: 204, body: '' }, { kind: 'recovery', status: 204, body: '' }], error: null });
    const sent = rx.received.filter((r) => r.path === '/core-hook').map((r) => JSON.parse(r.body));
    assert.deepEqual(sent.map((m) => m.event), ['outage.alert', 'outage.recovery']);
    assert.equal(rx.received.filter((r) => r.path === '/core-hook')[0]!.headers.authorization, 'Bearer SECRET', 'the stored secret header, opened');
    assert.match(sent[0].deliveryId, /^dlv_test/);
    assert.equal(p.store.alerts.all().length, 0, 'a test is not an outbox row');
    await assert.rejects(p.core.channels.test('nope'), (e: { status: number; code: string }) => e.status === 404 && e.code === 'channels.not_found');
  } finally {
    await p.cleanup();
  }
});
