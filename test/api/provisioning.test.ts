import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger } from '../../src/lib/logger.ts';
import { rawDb } from '../../src/store/index.ts';
import { startTestPharos, tempDir, TEST_SECRET_KEY, WRITE_TOKEN, type TestPharos } from '../support/pharos.ts';
import { freePort, spawnPharos, waitFor } from '../support/process.ts';

// Issue 32 point 4: config.yaml provisions integrations and escalation policies, at start and on
// SIGHUP; they are read-only for the API; one removed from config.yaml is deleted, or kept (no longer
// provisioned, with a warning) while something uses it. In-process on both stores
// (PHAROS_TEST_DRIVER=postgres); the SIGHUP wiring on a real `pharos serve`.
const OPS_URL = 'http://127.0.0.1:9/ops?key=prov-SECRET-1'; // nothing listens: no test sends here
const OPS_URL_2 = 'http://127.0.0.1:9/ops?key=prov-SECRET-2';

const first = {
  channels: [
    { name: 'ops', type: 'webhook', url: OPS_URL },
    { name: 'pager', type: 'ntfy', server: 'http://127.0.0.1:9', topic: 'pager' },
    { name: 'spare', type: 'ntfy', server: 'http://127.0.0.1:9', topic: 'spare' },
  ],
  escalation_policies: [
    { uuid: 'ep_prov', name: 'Provisioned', steps: [{ after_minutes: 0, channels: ['ops'] }, { after_minutes: 10, channels: ['ops', 'pager'] }], repeat_every_minutes: 30 },
    { uuid: 'ep_gone', name: 'Goes away', steps: [{ after_minutes: 0, channels: ['spare'] }] },
  ],
};

let p: TestPharos;
const lines: string[] = [];

const integrations = async (): Promise<Array<{ uuid: string; name: string; provisioned: boolean; settings: Record<string, unknown> }>> => (await p.api('/v1/integrations')).json();
const byName = async (name: string) => (await integrations()).find((i) => i.name === name);

before(async () => {
  p = await startTestPharos(first, undefined, createLogger('info', (l) => void lines.push(l), 'json'));
});
after(() => p.cleanup());

describe('provisioning from config.yaml', () => {
  test('at start: channels become provisioned integrations (secrets sealed), policies keep their uuid and name integrations by uuid', async () => {
    const all = await integrations();
    assert.deepEqual(all.map((i) => [i.name, i.provisioned]), [['ops', true], ['pager', true], ['spare', true]]);
    const ops = all[0]!;
    assert.equal(ops.settings.url, '***');
    const row = rawDb(p.store).prepare<[string], { settings: string; secrets: string }>('SELECT settings, secrets FROM integrations WHERE uuid = ?').get(ops.uuid)!;
    assert.ok(!(row.settings + row.secrets).includes('prov-SECRET-1'), 'the stored row holds no secret');
    const pager = all[1]!;
    const policy = await (await p.api('/v1/escalation-policies/ep_prov')).json();
    assert.deepEqual(
      { provisioned: policy.provisioned, name: policy.name, steps: policy.steps, repeat_every_minutes: policy.repeat_every_minutes, repeat_count: policy.repeat_count },
      {
        provisioned: true,
        name: 'Provisioned',
        steps: [
          { delay_minutes: 0, targets: [{ type: 'integration', uuid: ops.uuid }] },
          { delay_minutes: 10, targets: [{ type: 'integration', uuid: ops.uuid }, { type: 'integration', uuid: pager.uuid }] },
        ],
        repeat_every_minutes: 30,
        repeat_count: 0,
      },
    );
    assert.ok(lines.some((l) => l.includes('provisioned from config.yaml: integrations 3 created')), lines.join('\n'));
    assert.ok(!lines.join('').includes('prov-SECRET'), 'no secret is logged');
    const audit = await p.store.async.auditLog.page({ resourceUuid: ops.uuid }, 10);
    assert.deepEqual(audit.entries.map((e) => [e.action, e.actor]), [['create', { type: 'system', id: 'config.yaml', name: 'config.yaml' }]]);
  });

  test('again (SIGHUP): changed ones updated, new ones created, removed ones deleted, or kept unprovisioned while in use', async () => {
    const pager = (await byName('pager'))!;
    // An API policy uses the provisioned `pager`; a monitor uses ep_prov.
    const mine = await (await p.api('/v1/escalation-policies', { method: 'POST', json: { name: 'Mine', steps: [{ delay_minutes: 0, targets: [{ type: 'integration', uuid: pager.uuid }] }] } })).json();
    assert.equal(mine.provisioned, false);
    const monitor = await (await p.api('/v1/monitors', { method: 'POST', json: { name: 'prov', url: 'https://prov.example.com', paused: true, escalation_policy: 'ep_prov' } })).json();
    const opsBefore = (await byName('ops'))!;

    const report = await p.provision({
      channels: [
        { name: 'ops', type: 'webhook', url: OPS_URL_2, headers: {}, timeout_seconds: 10 },
        { name: 'chat', type: 'slack', url: 'https://hooks.slack.test/services/T/B/prov-SECRET-3', timeout_seconds: 10 },
      ] as never,
      escalation_policies: [{ uuid: 'ep_prov', name: 'Provisioned v2', steps: [{ after_minutes: 0, channels: ['ops', 'chat'] }] }],
    });
    assert.deepEqual(report.errors, []);
    assert.deepEqual(report.integrations, { created: 1, updated: 1, deleted: 1, kept: 1 });
    assert.deepEqual(report.policies, { created: 0, updated: 1, deleted: 1, kept: 0 });

    const all = await integrations();
    assert.deepEqual(all.map((i) => [i.name, i.provisioned]), [['chat', true], ['ops', true], ['pager', false]], 'spare deleted; pager kept for "Mine"');
    assert.ok(lines.some((l) => l.includes('"warn"') && l.includes('integration \\"pager\\" was removed from config.yaml but is in use')), 'a warning names the one kept');
    assert.equal((await p.api('/v1/escalation-policies/ep_gone')).status, 404);
    const policy = await (await p.api('/v1/escalation-policies/ep_prov')).json();
    assert.equal(policy.name, 'Provisioned v2');
    assert.equal(policy.repeat_every_minutes, null);
    assert.deepEqual(policy.steps[0].targets.map((t: { uuid: string }) => t.uuid), [opsBefore.uuid, all[0]!.uuid]);
    const audit = await p.store.async.auditLog.page({ resourceUuid: opsBefore.uuid }, 10);
    assert.deepEqual(audit.entries[0]!.diff, { 'settings.url': { before: '***', after: '***' } }, 'the URL changed, masked');
    // The one kept is the API's now; the provisioned ones still are not.
    assert.equal((await p.api(`/v1/integrations/${pager.uuid}`, { method: 'PATCH', json: { enabled: false } })).status, 200);
    assert.equal((await p.api(`/v1/integrations/${opsBefore.uuid}`, { method: 'PATCH', json: { enabled: false } })).status, 409);

    // ep_prov removed while a monitor uses it: kept, no longer provisioned.
    const last = await p.provision({ channels: [], escalation_policies: [] });
    assert.deepEqual(last.policies, { created: 0, updated: 0, deleted: 0, kept: 1 });
    assert.deepEqual(last.integrations, { created: 0, updated: 0, deleted: 0, kept: 2 }, 'ops and chat stay: ep_prov uses them');
    assert.equal((await (await p.api('/v1/escalation-policies/ep_prov')).json()).provisioned, false);
    assert.deepEqual((await (await p.api(`/v1/monitors/${monitor.uuid}`)).json()).escalation_policy, { uuid: 'ep_prov', name: 'Provisioned v2' });
  });
});

test('SIGHUP to pharos serve provisions the reloaded config.yaml', { timeout: 60_000 }, async () => {
  const dir = tempDir();
  const file = join(dir, 'config.yaml');
  const yaml = (policyName: string, withPolicy = true) =>
    `channels:\n  - name: hook\n    type: webhook\n    url: http://127.0.0.1:9/hook\n` +
    (withPolicy ? `escalation_policies:\n  - uuid: ep_hup\n    name: ${policyName}\n    steps:\n      - after_minutes: 0\n        channels: [hook]\n` : '');
  writeFileSync(file, yaml('Before'));
  const proc = await spawnPharos({ PHAROS_CONFIG: file, PHAROS_DATA_DIR: join(dir, 'data'), PHAROS_LISTEN: `127.0.0.1:${await freePort()}`, PHAROS_ADMIN_TOKEN: WRITE_TOKEN, PHAROS_SECRET_KEY: TEST_SECRET_KEY });
  try {
    const get = async (path: string) => {
      const res = await fetch(`${proc.url}${path}`, { headers: { Authorization: `Bearer ${WRITE_TOKEN}` } });
      return { status: res.status, body: (await res.json()) as { name?: string; provisioned?: boolean } };
    };
    assert.deepEqual((await get('/v1/escalation-policies/ep_hup')).body.name, 'Before');
    writeFileSync(file, yaml('After'));
    proc.child.kill('SIGHUP');
    await waitFor('the policy renamed', async () => (await get('/v1/escalation-policies/ep_hup')).body.name === 'After');
    writeFileSync(file, yaml('', false));
    proc.child.kill('SIGHUP');
    await waitFor('the policy deleted', async () => (await get('/v1/escalation-policies/ep_hup')).status === 404);
    assert.ok(!proc.stderr().includes('"level":"error"'), proc.stderr());
  } finally {
    proc.child.kill('SIGTERM');
    await proc.exited;
  }
});
