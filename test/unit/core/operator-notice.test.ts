import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { raiseOperatorNotice, resolveOperatorNotice, type OperatorNoticeDeps } from '../../../src/core/operator-notice.ts';
import type { AlertMessage } from '../../../src/domain/alert.ts';
import { openStore } from '../../../src/store/open.ts';
import { tempDir } from '../../support/pharos.ts';

// The one way Pharos tells the operator about itself (the flood guard, backups, ACME): its callers'
// own tests (test/api/flood-guard.test.ts, backups.test.ts, tls.test.ts) cover it through a real
// Pharos on both stores; this one pins what every caller relies on, on SQLite.

test('operator notices: one row per flood-guard channel (else every channel), raised then resolved under one key, none without channels', async () => {
  const dir = tempDir();
  const store = openStore({ driver: 'sqlite', dataDir: dir });
  const queued: number[] = [];
  const deps = (floodChannels: string[], channels: string[]): OperatorNoticeDeps => ({
    store,
    core: { bus: { emit: (_e: string, p: { count: number }) => void queued.push(p.count) } } as unknown as OperatorNoticeDeps['core'],
    config: { alerting: { flood_guard: { channels: floodChannels } }, channels: channels.map((name) => ({ name })) } as unknown as OperatorNoticeDeps['config'],
  });
  const notice = { key: 'backup:failed', title: 'Pharos backup failed', text: 'disk full' };
  try {
    assert.equal(await raiseOperatorNotice(deps(['ops'], ['ops', 'team']), notice, 1_700_000_000_000), 1);
    assert.equal(await raiseOperatorNotice(deps([], ['ops', 'team']), notice, 1_700_000_001_000), 2);
    assert.equal(await resolveOperatorNotice(deps(['ops'], ['ops']), { ...notice, title: 'Pharos backups work again' }, 1_700_000_002_000), 1);
    assert.equal(await raiseOperatorNotice(deps([], []), notice, 1_700_000_003_000), 0);
    assert.deepEqual(queued, [1, 2, 1], 'notices.queued once per notice queued, with its row count');

    const rows = store.alerts.all().filter((a) => a.kind === 'notice');
    assert.deepEqual(rows.map((r) => [r.channel, r.outageUuid, r.step, r.createdAt, r.nextAttemptAt]), [
      ['ops', null, null, 1_700_000_000_000, 1_700_000_000_000],
      ['ops', null, null, 1_700_000_001_000, 1_700_000_001_000],
      ['team', null, null, 1_700_000_001_000, 1_700_000_001_000],
      ['ops', null, null, 1_700_000_002_000, 1_700_000_002_000],
    ]);
    const messages = rows.map((r) => JSON.parse(r.message) as AlertMessage);
    assert.deepEqual(messages.map((m) => [m.kind, m.title, m.subject]), [
      ['notice', 'Pharos backup failed', { key: 'backup:failed', resolve: false }],
      ['notice', 'Pharos backup failed', { key: 'backup:failed', resolve: false }],
      ['notice', 'Pharos backup failed', { key: 'backup:failed', resolve: false }],
      ['notice', 'Pharos backups work again', { key: 'backup:failed', resolve: true }],
    ]);
    assert.deepEqual([messages[0]!.text, messages[0]!.outage, messages[0]!.escalation, messages[0]!.link, messages[0]!.createdAt], ['disk full', null, null, null, '2023-11-14T22:13:20.000Z']);
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
