import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { procedure, procedureNames } from '../../../src/store/async.ts';
import { openStore } from '../../../src/store/open.ts';
import { tempDir } from '../../support/pharos.ts';

// Issue 31: `store.async` (src/store/async.ts). On SQLite it is the synchronous store behind settled
// Promises and procedures run in `store.tx`; on PostgreSQL the same calls go to the store host thread
// (test/unit/pg/store-host.test.ts), which knows a procedure only if src/store-host.ts imports its module.

const SRC = fileURLToPath(new URL('../../../src/', import.meta.url));
const invitation = (email: string) => ({ email, role: 'viewer' as const, invitedBy: 'usr_1', createdAt: 1_700_000_000_000 });

function withSqlite(fn: (store: ReturnType<typeof openStore>) => Promise<void>) {
  return async () => {
    const dir = tempDir();
    const store = openStore({ driver: 'sqlite', dataDir: dir });
    try {
      await fn(store);
    } finally {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

const addTwo = procedure('test.addTwo', (tx, args: { a: string; b: string; fail: boolean }) => {
  tx.invitations.put(invitation(args.a));
  tx.invitations.put(invitation(args.b));
  if (args.fail) throw new Error('the body failed');
  return tx.invitations.list().length;
});

test('sqlite: a module call answers what the synchronous call returns; an error rejects, it does not throw', withSqlite(async (store) => {
  store.invitations.put(invitation('a@example.com'));
  assert.deepEqual(await store.async.invitations.list(), store.invitations.list());
  let bad: Promise<unknown> | undefined;
  assert.doesNotThrow(() => void (bad = store.async.invitations.put(null as never)));
  await assert.rejects(bad!, TypeError);
}));

test('sqlite: a procedure runs in one transaction: all of it or none', withSqlite(async (store) => {
  await assert.rejects(store.async.tx(addTwo, { a: 'x@example.com', b: 'y@example.com', fail: true }), /the body failed/);
  assert.deepEqual(store.invitations.list(), [], 'rolled back');
  assert.equal(await store.async.tx(addTwo, { a: 'x@example.com', b: 'y@example.com', fail: false }), 2);
  assert.equal(store.invitations.list().length, 2);
}));

test('a second procedure under a taken name is refused', () => {
  assert.throws(() => procedure('test.addTwo', () => 0), /already exists/);
});

/** Every `procedure('<name>'` in src/ (test files aside). */
function proceduresInSource(dir = SRC): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    if (statSync(p).isDirectory()) return proceduresInSource(p);
    if (!p.endsWith('.ts') || p.endsWith('.test.ts')) return [];
    return [...readFileSync(p, 'utf8').matchAll(/\bprocedure(?:<[^>]*>)?\(\s*['"]([^'"]+)['"]/g)].map((m) => m[1]!).filter((n) => /^[\w.-]+$/.test(n));
  });
}

test('the store host knows every procedure of src/: the modules src/store-host.ts imports register them all', async () => {
  const host = readFileSync(join(SRC, 'store-host.ts'), 'utf8');
  const specs = [...host.matchAll(/^import\s+(?:[^'"]*from\s+)?['"](\.[^'"]+)['"]/gm)].map((m) => m[1]!).filter((s) => !s.includes('host-server'));
  for (const spec of specs) await import(new URL(spec, new URL('../../../src/store-host.ts', import.meta.url)).href);
  const known = new Set(procedureNames());
  const missing = proceduresInSource().filter((n) => !known.has(n));
  assert.deepEqual(missing, [], 'procedures whose module src/store-host.ts does not import');
});
