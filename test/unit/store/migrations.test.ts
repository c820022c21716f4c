import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { migrate, openDbFile } from '../../../src/store/db.ts';
import { MIGRATIONS } from '../../../src/store/migrations/index.ts';
import { tempDir } from '../../support/pharos.ts';

test('migrations are numbered 1..n in order, and every prefix applies on an empty file and then up to the end (house rule 6)', () => {
  MIGRATIONS.forEach((m, i) => assert.equal(m.version, i + 1, `migration ${m.name} has version ${i + 1}`));
  for (let k = 0; k <= MIGRATIONS.length; k++) {
    const db = openDbFile(join(tempDir(), 'p.db'), MIGRATIONS.slice(0, k));
    assert.equal(db.pragma('user_version', { simple: true }), k);
    assert.deepEqual(migrate(db), MIGRATIONS.slice(k).map((m) => m.version));
    assert.equal(db.pragma('user_version', { simple: true }), MIGRATIONS.length);
    assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
    db.close();
  }
});

test('a database from a newer Pharos is refused with a clear message', () => {
  const file = join(tempDir(), 'p.db');
  const db = openDbFile(file);
  db.pragma(`user_version = ${MIGRATIONS.length + 1}`);
  db.close();
  assert.throws(() => openDbFile(file), /newer than this Pharos knows.*refusing to downgrade/);
});
