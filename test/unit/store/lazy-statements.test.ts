import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { sqliteDb } from '../../../src/store/db.ts';

// Issue 38 point 1: the SQLite driver prepares a statement at its first use, not when a store module
// builds it (src/store/db.ts lazyStatement): most of the few hundred statements built at start are
// never run by a given configuration, and each prepared one holds SQLite's compiled program.

test('a statement is prepared at its first run: building one for a table made later works, an SQL error surfaces at the run', () => {
  const raw = new Database(':memory:');
  const db = sqliteDb(raw);
  // Prepared at once, both lines would throw here ("no such table").
  const insert = db.prepare<[string], never>('INSERT INTO later (name) VALUES (?)');
  const names = db.prepare<[], { name: string }>('SELECT name FROM later ORDER BY id');
  const broken = db.prepare('SELEC nothing');
  db.exec('CREATE TABLE later (id INTEGER PRIMARY KEY, name TEXT NOT NULL)');
  assert.equal(insert.run('a').changes, 1);
  insert.run('b');
  assert.deepEqual(names.all(), [{ name: 'a' }, { name: 'b' }]);
  assert.deepEqual(names.get(), { name: 'a' });
  assert.deepEqual([...names.iterate()].map((r) => r.name), ['a', 'b']);
  assert.throws(() => broken.run(), /syntax error/);
  raw.close();
});
