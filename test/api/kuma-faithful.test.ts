import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startTestPharos, tempDir, type TestPharos } from '../support/pharos.ts';
import { KUMA_2_SCHEMA } from '../support/kuma.ts';
import { importKuma, kumaWriters, type KumaImportReport } from '../../src/core/import-kuma.ts';
import { readKumaDb } from '../../src/store/kuma.ts';

// Issue 36 "Kuma import, faithful": a Kuma 2.x kuma.db built with Kuma's own schema (its knex
// migrations, test/support/kuma.ts), imported into a real Pharos; what arrived is read over the API.
let p: TestPharos;
before(async () => {
  p = await startTestPharos();
});
after(() => p.cleanup());

/** A Kuma 2.x database with `sql` run after the schema, imported; the report. */
function importSql(sql: string): KumaImportReport {
  const file = join(tempDir(), 'kuma.db');
  const db = new Database(file);
  db.exec(KUMA_2_SCHEMA);
  db.exec(`INSERT INTO user(id, username, password) VALUES (1, 'admin', 'x');\n${sql}`);
  db.close();
  return importKuma({ store: p.store, clock: p.clock, publicUrl: 'https://pharos.example.com', writers: kumaWriters(p.core.config), statuspages: p.core.statuspages, seal: (t) => t }, readKumaDb(file));
}

/** The API's view of the monitor named `name`. */
async function monitorNamed(name: string): Promise<Record<string, unknown>> {
  const all = (await (await p.api('/v1/monitors')).json()) as Array<Record<string, unknown>>;
  const m = all.find((x) => x.name === name);
  assert.ok(m, `monitor ${name} imported`);
  return m;
}

const item = (r: KumaImportReport, name: string) => r.items.find((i) => i.name === name)!;

test('a timeout longer than the interval (Kuma allows it) is clamped to the check frequency, and the report says so', async () => {
  const r = importSql(`INSERT INTO monitor(id, name, active, user_id, interval, url, type, timeout) VALUES (1, 'Slow API', 1, 1, 20, 'https://slow.example.com', 'http', 48);`);
  const it = item(r, 'Slow API');
  assert.equal(it.result, 'created', JSON.stringify(it));
  assert.ok(it.notes.some((n) => /timeout 48 s → 20 s/.test(n) && /check frequency/.test(n)), JSON.stringify(it.notes));
  const m = await monitorNamed('Slow API');
  assert.equal(m.timeout, 20);
  assert.equal(m.check_frequency, 20);
});
