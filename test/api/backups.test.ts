import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { openDb } from '../../src/store/db.ts';
import { MIGRATIONS } from '../../src/store/migrations/index.ts';
import { openStore } from '../../src/store/open.ts';
import { checkDbFile, listBackups, writeBackup } from '../../src/store/backup-files.ts';
import { rawDb } from '../../src/store/index.ts';
import type { Logger } from '../../src/lib/logger.ts';
import { setupAdmin, signIn } from '../support/console.ts';
import { ONCE_IN_POSTGRES_MATRIX, ONCE_IN_SQLITE_RUN, sharedPostgres, startTestPharos, tempDir, TEST_DRIVER } from '../support/pharos.ts';
import { openPostgresDb } from '../../src/store/pg/driver.ts';
import { migratePostgres, PG_MIGRATIONS } from '../../src/store/pg/migrations.ts';
import { freePort, isolatedCwd, isolatedEnv, PHAROS_FROM_SOURCE, spawnPharos, waitFor, type PharosProcess } from '../support/process.ts';

// Issue 37 points 3 and 4: scheduled backups, pharos restore, pharos version --check-db, pre-upgrade
// copies and the refused downgrade. Scheduled backups are SQLite's (PostgreSQL: pg_dump), so the
// process tests run once, in the SQLite run.
const run = promisify(execFile);
const HOUR = 3_600_000;
const children: PharosProcess[] = [];
after(() => children.forEach((c) => c.child.kill('SIGKILL')));

/** `pharos ARGS` from source with `env` (and no other PHAROS_* variable): exit code, stdout, stderr. */
async function pharos(args: string[], env: Record<string, string> = {}) {
  try {
    const r = await run(process.execPath, [...PHAROS_FROM_SOURCE, ...args], { cwd: isolatedCwd(), env: isolatedEnv(env) });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, stdout: x.stdout, stderr: x.stderr };
  }
}

function collectingLogger(lines: string[]): Logger {
  const add = (msg: string) => void lines.push(msg);
  return { debug: add, info: add, warn: add, error: add };
}

test('scheduled backups: every interval a verified copy is listed, the oldest beyond keep are removed, each logged in one line; PostgreSQL schedules none', async () => {
  const lines: string[] = [];
  const p = await startTestPharos({ backup: { every: '1h', keep: 2 } }, undefined, collectingLogger(lines));
  try {
    const dir = join(p.core.config.data_dir, 'backups');
    const admin = await setupAdmin(p); // before the clock moves past the setup link's hour
    await p.advance(HOUR - 1);
    assert.equal(p.backups.status().files.length, 0);
    if (TEST_DRIVER === 'postgres') {
      await p.advance(3 * HOUR);
      assert.equal(p.backups.status().every, 'postgres');
      assert.equal(existsSync(dir), false);
      assert.ok(lines.some((l) => l.includes('pg_dump')));
      return;
    }
    for (let i = 0; i < 3; i++) {
      await p.advance(HOUR);
      await waitFor(`backup ${i + 1}`, async () => p.backups.status().runs.length === i + 1);
    }
    const status = p.backups.status();
    assert.deepEqual(status.runs.map((r) => r.ok), [true, true, true]);
    assert.equal(status.files.length, 2, 'keep: 2');
    assert.deepEqual(status.files.map((f) => f.name), status.runs.slice(0, 2).map((r) => r.name));
    assert.ok(status.files.every((f) => checkDbFile(join(dir, f.name)).ok));
    assert.deepEqual(readdirSync(dir).sort(), status.files.map((f) => f.name).sort(), 'nothing else in the folder');
    const logged = lines.filter((l) => l.startsWith('backup ok: '));
    assert.equal(logged.length, 3);
    assert.match(logged[2]!, /MB, integrity_check ok, \d+ ms; removed pharos-/);
    // Settings → Backups (admins): the schedule, the two files with their sizes, the three runs.
    const html = (await admin.get('/settings')).html;
    assert.match(html, /<h2 id="backups">Backups<\/h2>/);
    assert.match(html, /Every 1h, keeping 2, in /);
    for (const f of status.files) assert.ok(html.includes(`<td>${f.name}</td>`), f.name);
    assert.equal((html.match(/<td>ok \(pharos-/g) ?? []).length, 3);
    // Admins only: an editor's Settings has no Backups section (where the files are, what failed).
    await admin.post('/settings/users', { email: 'ed@example.com', name: 'Ed', role: 'editor', password: 'ed long password' });
    const editor = await signIn(p, 'ed@example.com', 'ed long password');
    const theirs = (await editor.get('/settings')).html;
    assert.match(theirs, /Settings/);
    assert.doesNotMatch(theirs, /id="backups"|pharos-\d{8}/);
  } finally {
    await p.close();
  }
});

test('a backup that fails is logged and raises an operator notice on the flood guard channels', { skip: ONCE_IN_SQLITE_RUN }, async () => {
  const lines: string[] = [];
  const blocker = join(tempDir(), 'a-file');
  writeFileSync(blocker, 'not a folder');
  const p = await startTestPharos(
    { backup: { every: '30m', dir: join(blocker, 'backups') }, channels: [{ name: 'ops', type: 'webhook', url: 'http://127.0.0.1:9/hook' }] },
    undefined,
    collectingLogger(lines),
  );
  try {
    await p.advance(30 * 60_000);
    const run = await waitFor('the failed run', async () => p.backups.status().runs[0]);
    assert.equal(run.ok, false);
    assert.match((await (await setupAdmin(p)).get('/settings')).html, /<td>failed: backup to .* failed: ENOTDIR/);
    assert.ok(lines.some((l) => l.startsWith('backup failed: ')), lines.join('\n'));
    const rows = await waitFor('the notice', async () => {
      const r = rawDb(p.store).prepare<[], { channel: string; message: string }>("SELECT channel, message FROM alerts WHERE kind = 'notice'").all();
      return r.length > 0 ? r : null;
    });
    assert.equal(rows[0]!.channel, 'ops');
    assert.deepEqual(JSON.parse(rows[0]!.message).subject, { key: 'backup:failed', resolve: false });
    assert.equal(JSON.parse(rows[0]!.message).title, 'Pharos backup failed');
    // The folder can be written again: the next backup works and resolves the notice (same key).
    rmSync(blocker);
    mkdirSync(blocker);
    await p.advance(30 * 60_000);
    await waitFor('the next run', async () => p.backups.status().runs.length === 2);
    assert.equal(p.backups.status().runs[0]!.ok, true);
    const resolved = await waitFor('the resolving notice', async () => {
      const r = rawDb(p.store).prepare<[], { message: string }>("SELECT message FROM alerts WHERE kind = 'notice' ORDER BY id").all();
      return r.length > 1 ? JSON.parse(r[1]!.message) : null;
    });
    assert.equal(resolved.title, 'Pharos backups work again');
    assert.deepEqual(resolved.subject, { key: 'backup:failed', resolve: true });
  } finally {
    await p.close();
  }
});

test('killed mid-backup: the previous backup stays intact and the partial copy is never listed; restore refuses the running server, a corrupt file, then restores', { skip: ONCE_IN_SQLITE_RUN }, async () => {
  const dataDir = tempDir();
  const dir = join(dataDir, 'backups');
  // A database large enough that its copy and check take a moment (~60 MB of audit entries, one
  // transaction), and the previous backup, made by an earlier run (overdue: the server backs up at
  // once when it starts).
  const store = openStore({ driver: 'sqlite', dataDir });
  const diff = { note: { after: 'x'.repeat(4000) } };
  store.tx((tx) => {
    for (let i = 0; i < 15_000; i++) {
      tx.auditLog.append({ at: i, actor: { type: 'system', id: 'seed', name: 'seed' }, action: 'update', resourceType: 'monitor', resourceUuid: `mon_${i}`, resourceName: 'seed', diff });
    }
  });
  const previous = await writeBackup(store, dir, Date.UTC(2020, 0, 1));
  store.close();
  const before = readFileSync(previous.file);
  const port = await freePort();
  const env = { PHAROS_LISTEN: `127.0.0.1:${port}`, PHAROS_DATA_DIR: dataDir, PHAROS_BACKUP_EVERY: '1h' };

  // SIGKILL the moment the partial copy appears in the folder (the copy is being written; it is
  // renamed only after its integrity_check): no sleep, the folder's own event.
  const child = spawn(process.execPath, [...PHAROS_FROM_SOURCE, 'serve'], { cwd: isolatedCwd(), env: isolatedEnv({ ...env, PHAROS_SECRET_KEY: '7e'.repeat(32) }), stdio: 'ignore' });
  const exited = new Promise((r) => child.once('exit', r));
  const seen: string[] = [];
  const watcher = watch(dir, (_event, name) => {
    if (name && name.endsWith('.partial') && child.exitCode === null) {
      seen.push(name);
      child.kill('SIGKILL');
    }
  });
  try {
    await exited;
  } finally {
    watcher.close();
  }
  assert.ok(seen.length > 0, 'killed while the partial copy was being written');
  assert.equal(readdirSync(dir).filter((n) => n.endsWith('.partial')).length, 1, `the partial copy is left behind: ${readdirSync(dir).join(', ')}`);
  assert.deepEqual(listBackups(dir).map((b) => b.name), [previous.name], 'the partial copy is not listed');
  assert.ok(readFileSync(previous.file).equals(before), 'the previous backup is untouched');
  assert.equal(checkDbFile(previous.file).ok, true);

  // Started again, it removes the partial copy before its (overdue) backup; while it serves, restore is refused.
  const again = await spawnPharos(env);
  children.push(again);
  await waitFor('the overdue backup', async () => listBackups(dir).length === 2);
  assert.deepEqual(readdirSync(dir).filter((n) => n.endsWith('.partial')), []);
  const refused = await pharos(['restore', previous.file], { PHAROS_DATA_DIR: dataDir });
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, new RegExp(`a Pharos \\(process ${again.child.pid}\\) is serving ${dataDir}; stop it first`));
  again.child.kill('SIGTERM');
  await again.exited;
  assert.equal(existsSync(join(dataDir, 'pharos.pid')), false, 'a graceful stop removes the pid file');

  const corrupt = join(dataDir, 'corrupt.db');
  writeFileSync(corrupt, Buffer.concat([before.subarray(0, 4096), Buffer.alloc(before.length - 4096, 0x5a)]));
  const bad = await pharos(['restore', corrupt], { PHAROS_DATA_DIR: dataDir });
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /cannot be restored: .*nothing was changed/);
  assert.ok(existsSync(join(dataDir, 'pharos.db')));
  assert.ok(!readdirSync(dataDir).some((n) => n.endsWith('.before-restore')));

  const ok = await pharos(['restore', previous.file], { PHAROS_DATA_DIR: dataDir });
  assert.equal(ok.code, 0, ok.stderr);
  assert.match(ok.stdout, /integrity_check ok/);
  assert.equal(readdirSync(dataDir).filter((n) => n.endsWith('.before-restore')).length, 1);
});

test('upgrades: version --check-db names pending migrations, the first start copies the database before them, a downgrade refuses to start with a clear message', { skip: ONCE_IN_SQLITE_RUN }, async () => {
  const dataDir = tempDir();
  const last = MIGRATIONS.at(-1)!;
  openDb(dataDir, MIGRATIONS.slice(0, -1)).close();
  const before = last.version - 1;
  const pending = await pharos(['version', '--check-db'], { PHAROS_DATA_DIR: dataDir });
  assert.equal(pending.code, 0, pending.stderr);
  assert.match(pending.stdout, new RegExp(`schema version ${before}; this Pharos needs ${last.version}: 1 migration pending: ${last.version} ${last.name}`));

  openDb(dataDir).close();
  const copy = join(dataDir, `pharos.db.schema${before}.before-upgrade-to-${last.version}`);
  assert.ok(existsSync(copy), readdirSync(dataDir).join(', '));
  assert.equal(checkDbFile(copy).version, before);
  const current = await pharos(['version', '--check-db', '--data-dir', dataDir]);
  assert.match(current.stdout, new RegExp(`schema version ${last.version}: up to date`));

  const db = new Database(join(dataDir, 'pharos.db'));
  db.pragma(`user_version = ${last.version + 5}`);
  db.close();
  const elsewhere = tempDir();
  const refused = await pharos(['restore', join(dataDir, 'pharos.db')], { PHAROS_DATA_DIR: elsewhere });
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, new RegExp(`its schema version ${last.version + 5} is newer than this Pharos knows \\(${last.version}\\).*nothing was changed`));
  assert.equal(existsSync(join(elsewhere, 'pharos.db')), false);
  const newer = await pharos(['version', '--check-db', '--data-dir', dataDir]);
  assert.equal(newer.code, 3);
  assert.match(newer.stdout, /written by a newer Pharos/);
  const port = await freePort();
  const serve = await pharos(['serve'], { PHAROS_LISTEN: `127.0.0.1:${port}`, PHAROS_DATA_DIR: dataDir, PHAROS_SECRET_KEY: '7e'.repeat(32) });
  assert.equal(serve.code, 3, serve.stderr);
  assert.match(serve.stderr, new RegExp(`^pharos: ${join(dataDir, 'pharos.db')}: schema version ${last.version + 5} is newer than this Pharos knows \\(up to ${last.version}\\): a newer Pharos wrote it; refusing to downgrade it\\. Run the newer Pharos, or restore a backup from before the upgrade`));
  assert.doesNotMatch(serve.stderr, /\n\s+at /, 'no stack trace');
});

test('upgrades on PostgreSQL: version --check-db names pending migrations; a database written by a newer Pharos refuses to start with a clear message and exit code 3', { skip: ONCE_IN_POSTGRES_MATRIX }, async () => {
  const url = await (await sharedPostgres()).createDatabase(`newer${process.pid}`);
  const last = PG_MIGRATIONS.at(-1)!;
  const check = () => pharos(['version', '--check-db'], { PHAROS_DATABASE_URL: url });
  const empty = await check();
  assert.equal(empty.code, 1, empty.stderr);
  assert.match(empty.stdout, /: empty \(the first start creates the schema\)/);
  const db = openPostgresDb({ url, poolSize: 1, statementTimeoutMs: 10_000 });
  try {
    migratePostgres(db, PG_MIGRATIONS.slice(0, -1));
    const pending = await check();
    assert.equal(pending.code, 0, pending.stderr);
    assert.match(pending.stdout, new RegExp(`database postgres://.*: schema version ${last.version - 1}; this Pharos needs ${last.version}: 1 migration pending: ${last.version} ${last.name}; Pharos takes no copy of a PostgreSQL database: pg_dump it first`));
    assert.doesNotMatch(pending.stdout, new RegExp(new URL(url).password), 'the password is masked');
    migratePostgres(db);
    assert.match((await check()).stdout, new RegExp(`schema version ${last.version}: up to date`));
    db.prepare('UPDATE pharos_schema SET version = ?').run(PG_MIGRATIONS.at(-1)!.version + 5);
  } finally {
    db.close();
  }
  const newer = await check();
  assert.equal(newer.code, 3);
  assert.match(newer.stdout, /written by a newer Pharos .*restore the pg_dump taken before the upgrade/);
  const port = await freePort();
  const serve = await pharos(['serve'], { PHAROS_LISTEN: `127.0.0.1:${port}`, PHAROS_DATA_DIR: tempDir(), PHAROS_DATABASE_URL: url, PHAROS_SECRET_KEY: '7e'.repeat(32) });
  assert.equal(serve.code, 3, serve.stderr);
  assert.match(serve.stderr, new RegExp(`^pharos: PostgreSQL database: schema version ${PG_MIGRATIONS.at(-1)!.version + 5} is newer than this Pharos knows \\(up to ${PG_MIGRATIONS.at(-1)!.version}\\): a newer Pharos wrote it; refusing to downgrade it\\. Run the newer Pharos, or restore the pg_dump taken before the upgrade`));
  assert.doesNotMatch(serve.stderr, /\n\s+at /, 'no stack trace');
});

test('upgrades at start: each store says in one line what it migrated and where the copy from before is (SQLite) or that none was taken (PostgreSQL: pg_dump)', async () => {
  const dataDir = tempDir();
  const last = MIGRATIONS.at(-1)!;
  // PostgreSQL: a database of its own (the test databases start at the latest schema).
  const url = TEST_DRIVER === 'postgres' ? await (await sharedPostgres()).createDatabase(`upgrade${process.pid}`) : undefined;
  const config = { data_dir: dataDir, ...(url ? { storage: { driver: 'postgres', postgres_url: url } } : {}) };
  if (url) {
    const db = openPostgresDb({ url, poolSize: 1, statementTimeoutMs: 10_000 });
    try {
      migratePostgres(db, PG_MIGRATIONS.slice(0, -1));
    } finally {
      db.close();
    }
  } else {
    openDb(dataDir, MIGRATIONS.slice(0, -1)).close();
  }
  const lines: string[] = [];
  const p = await startTestPharos(config, undefined, collectingLogger(lines));
  await p.close();
  const said = lines.filter((l) => l.startsWith('database '));
  assert.equal(said.length, 1, lines.join('\n'));
  const copy = url ? 'Pharos took no copy of a PostgreSQL database: the pg_dump taken before the upgrade is the way back' : `the database from before is kept as ${join(dataDir, 'pharos.db')}.schema${last.version - 1}.before-upgrade-to-${last.version} (pharos restore it to go back)`;
  assert.ok(said[0]!.includes(`: schema version ${last.version - 1} → ${last.version} (1 migration, one transaction each); ${copy}`), said[0]);
});
