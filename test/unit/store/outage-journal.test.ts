import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { outageJournal } from '../../../src/store/outage-journal.ts';
import type { CheckResult } from '../../../src/domain/check.ts';

// The leader's local journal of results during a database outage (issue 31 point 5).

const result = (at: number): CheckResult => ({ monitorId: 1, at, region: 'local', probe: 'local', ok: true, latencyMs: 12, statusCode: 200, reason: null });

test('batches survive a reopen (a crash), a torn last line is skipped, dropped batches are gone', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'pharos-journal-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'sub', 'outage-journal.jsonl');
  const j = outageJournal(file);
  assert.deepEqual(j.stats(), { batches: 0, bytes: 0 });
  assert.equal(j.append([result(1), result(2)]), true);
  assert.equal(j.append([result(3)]), true);
  // A crash in the middle of the next append.
  appendFileSync(file, '{"id":"jrn_torn","at":1,"res');
  const again = outageJournal(file);
  assert.equal(again.stats().batches, 2);
  const batches = again.batches();
  assert.deepEqual(batches.map((b) => b.results.map((r) => r.at)), [[1, 2], [3]]);
  assert.notEqual(batches[0]!.id, batches[1]!.id);
  again.drop(1);
  assert.deepEqual(again.batches().map((b) => b.id), [batches[1]!.id], 'the rest kept, with its id (a replay claims the same id)');
  again.drop(1);
  assert.equal(existsSync(file), false);
  assert.deepEqual(again.stats(), { batches: 0, bytes: 0 });
});

test('bounded: past maxBytes a batch is refused (the caller keeps it in memory)', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'pharos-journal-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const j = outageJournal(join(dir, 'j.jsonl'), 400);
  assert.equal(j.append([result(1)]), true);
  assert.equal(j.append([result(2), result(3), result(4)]), false);
  assert.equal(j.stats().batches, 1);
});
