import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startTestPharos, tempDir, type TestPharos } from '../support/pharos.ts';
import { importKuma, kumaWriters } from '../../src/core/import-kuma.ts';
import { parseKumaBackup } from '../../src/domain/kuma/types.ts';
import { readKumaDb } from '../../src/store/kuma.ts';

// Issue 33 point 5 with `pharos import kuma`: Kuma's tags arrive as Pharos tags (with Kuma's colour
// and value), and a monitor inside a Kuma group monitor gets that group's name as its group.
let p: TestPharos;
before(async () => {
  p = await startTestPharos();
});
after(() => p.cleanup());

const monitor = (id: number, name: string, extra: Record<string, unknown> = {}) => ({ id, name, type: 'http', active: true, url: `http://127.0.0.1:9/${id}`, interval: 60, maxretries: 0, notificationIDList: {}, ...extra });

test('a backup\'s tags and group monitors become tags (Kuma\'s colours) and groups; a tag Pharos refuses is left out with a note', async () => {
  const backup = JSON.stringify({
    version: '1.23.0',
    notificationList: [],
    monitorList: [
      monitor(1, 'Backends', { type: 'group' }),
      monitor(2, 'api', { parent: 1, tags: [{ name: 'env', color: '#DC2626', value: 'prod' }, { name: 'team', color: '#2563EB', value: '' }] }),
      monitor(3, 'web', { tags: [{ name: 'a:b', color: '#000000', value: '' }, { name: 'team', color: '#2563EB', value: '' }] }),
    ],
  });
  const report = importKuma({ store: p.store, clock: p.clock, publicUrl: 'https://pharos.example.com', writers: kumaWriters(p.core.config), statuspages: p.core.statuspages, seal: (t) => t }, parseKumaBackup(backup));
  const mons = ((await (await p.api('/v1/monitors')).json()) as Array<{ name: string; tags: string[]; group: string | null }>).filter((m) => m.name === 'api' || m.name === 'web');
  assert.deepEqual(
    mons.map((m) => [m.name, m.tags, m.group]).sort(),
    [
      ['api', ['env:prod', 'team'], 'Backends'],
      ['web', ['team'], null],
    ],
  );
  const tags = (await (await p.api('/v1/tags')).json()) as Array<{ name: string; color: string }>;
  assert.deepEqual(Object.fromEntries(tags.filter((t) => t.name === 'env' || t.name === 'team').map((t) => [t.name, t.color])), { env: '#dc2626', team: '#2563eb' });
  const web = report.items.find((i) => i.name === 'web')!;
  assert.ok(web.notes.some((n) => n.includes('tag "a:b" left out')), JSON.stringify(web.notes));
});

test('kuma.db: tags are read from `tag` and `monitor_tag`, the group from `parent`', () => {
  const file = join(tempDir(), 'kuma.db');
  const db = new Database(file);
  db.exec(`
    CREATE TABLE monitor (id INTEGER PRIMARY KEY, name TEXT, type TEXT, active INTEGER, url TEXT, interval INTEGER, maxretries INTEGER, parent INTEGER);
    CREATE TABLE notification (id INTEGER PRIMARY KEY, name TEXT, config TEXT, active INTEGER, is_default INTEGER);
    CREATE TABLE monitor_notification (id INTEGER PRIMARY KEY, monitor_id INTEGER, notification_id INTEGER);
    CREATE TABLE tag (id INTEGER PRIMARY KEY, name TEXT, color TEXT);
    CREATE TABLE monitor_tag (id INTEGER PRIMARY KEY, monitor_id INTEGER, tag_id INTEGER, value TEXT);
    INSERT INTO monitor VALUES (1, 'G', 'group', 1, NULL, 60, 0, NULL), (2, 'child', 'http', 1, 'http://x/', 60, 0, 1);
    INSERT INTO tag VALUES (7, 'db', '#059669');
    INSERT INTO monitor_tag VALUES (1, 2, 7, 'primary');
  `);
  db.close();
  const data = readKumaDb(file);
  const child = data.monitors.find((m) => m.name === 'child')!;
  assert.deepEqual(child.tags, [{ name: 'db', color: '#059669', value: 'primary' }]);
  assert.equal(child.parentId, 1);
  assert.equal(data.monitors.find((m) => m.name === 'G')!.parentId, null);
});
