import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { addonDirs, loadAddon } from '../../../src/lib/sea.ts';
import { tempDir } from '../../support/pharos.ts';

// The addon loader of the single executable (issue #20), run in this process on the real
// better-sqlite3 addon for this machine: every load below is a real write + hash check + dlopen.
// Read-only and noexec folders are real tmpfs mounts (`mount -t tmpfs -o ro|noexec`, the suite runs
// as root, as CI does); a read-only mount stands for a read-only home because root ignores mode bits.
const ADDON = readFileSync(fileURLToPath(new URL(`../../../node_modules/better-sqlite3/prebuilds/${process.platform}-${process.arch}.node`, import.meta.url)));
const root = tempDir('pharos-addon-');
const mounts: string[] = [];

function mount(name: string, option: 'ro' | 'noexec'): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', `${option},size=16m,mode=0700`, 'tmpfs', dir]);
  mounts.push(dir);
  return dir;
}

after(() => {
  for (const dir of mounts.reverse()) execFileSync('umount', ['-l', dir]);
  rmSync(root, { recursive: true, force: true });
});

const isSqliteAddon = (exports: object) => typeof (exports as { Database?: unknown }).Database === 'function';
const uid = process.getuid!();

test('folders are tried in order: data dir, $XDG_CACHE_HOME (else ~/.cache), $TMPDIR', () => {
  assert.deepEqual(addonDirs({ XDG_CACHE_HOME: '/c', TMPDIR: '/t', HOME: '/h' }, '/d'), ['/d/native', '/c/pharos', `/t/pharos-${uid}`]);
  assert.deepEqual(addonDirs({ TMPDIR: '/t', HOME: '/h' }), ['/h/.cache/pharos', `/t/pharos-${uid}`]);
});

test('a writable data dir holds the addon: content-addressed name, mode 0700 folder, loaded from there', () => {
  const data = join(root, 'data');
  const { exports, file } = loadAddon(ADDON, addonDirs({ XDG_CACHE_HOME: join(root, 'unused-cache'), TMPDIR: join(root, 'unused-tmp') }, data), 'better_sqlite3');
  assert.ok(isSqliteAddon(exports));
  assert.match(file, new RegExp(`^${join(data, 'native')}/better_sqlite3-[0-9a-f]{16}\\.node$`));
  assert.equal(statSync(join(data, 'native')).mode & 0o777, 0o700);
  assert.ok(!existsSync(join(root, 'unused-cache')), 'later folders are not touched');
});

test('read-only home and no data dir: the addon goes to $TMPDIR/pharos-<uid>', () => {
  const home = mount('ro-home', 'ro');
  const tmp = join(root, 'tmp1');
  mkdirSync(tmp);
  const { exports, file } = loadAddon(ADDON, addonDirs({ HOME: home, TMPDIR: tmp }), 'better_sqlite3');
  assert.ok(isSqliteAddon(exports));
  assert.equal(file.startsWith(join(tmp, `pharos-${uid}`) + '/'), true, file);
});

test('a noexec cache: the addon is written there, dlopen fails, and the next folder is used', () => {
  const cache = mount('noexec-cache', 'noexec');
  const tmp = join(root, 'tmp2');
  mkdirSync(tmp);
  const { exports, file } = loadAddon(ADDON, addonDirs({ XDG_CACHE_HOME: cache, TMPDIR: tmp }), 'better_sqlite3');
  assert.ok(isSqliteAddon(exports));
  assert.equal(readdirSync(join(cache, 'pharos')).length, 1, 'the noexec cache was tried: the file is there');
  assert.equal(file.startsWith(join(tmp, `pharos-${uid}`) + '/'), true, file);
});

test('nothing usable: one line naming every folder tried and why', () => {
  const data = mount('ro-data', 'ro');
  const cache = mount('noexec-cache2', 'noexec');
  const tmp = mount('ro-tmp', 'ro');
  const dirs = addonDirs({ XDG_CACHE_HOME: cache, TMPDIR: tmp }, data);
  assert.throws(
    () => loadAddon(ADDON, dirs, 'better_sqlite3'),
    (e: Error) => {
      assert.equal(e.message.split('\n').length, 1, e.message);
      assert.match(e.message, /^cannot load the SQLite addon: tried /);
      for (const dir of dirs) assert.ok(e.message.includes(dir), `names ${dir}: ${e.message}`);
      assert.match(e.message, new RegExp(`${join(cache, 'pharos')} \\(cannot load \\(noexec\\?\\): failed to map segment`));
      assert.match(e.message, new RegExp(`${join(data, 'native')} \\(not writable: EROFS: read-only file system\\)`));
      assert.match(e.message, /set PHAROS_DATA_DIR, XDG_CACHE_HOME or TMPDIR/);
      return true;
    },
  );
});

test('a damaged or replaced file under the content-addressed name is rewritten before dlopen', () => {
  const dir = join(root, 'data-tampered', 'native');
  const name = `better_sqlite3-${createHash('sha256').update(ADDON).digest('hex').slice(0, 16)}.node`;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(join(dir, name), 'not an addon'); // dlopen of this would fail
  const { exports, file } = loadAddon(ADDON, [dir], 'better_sqlite3');
  assert.equal(file, join(dir, name));
  assert.ok(isSqliteAddon(exports));
  assert.deepEqual(readFileSync(file), ADDON, 'the file holds the real addon again');
});

test('a folder in a shared tmp that is not ours, or open to others, is refused', () => {
  const tmp = join(root, 'shared-tmp');
  const theirs = join(tmp, `pharos-${uid}`);
  mkdirSync(theirs, { recursive: true, mode: 0o700 });
  chownSync(theirs, 65534, 65534);
  const mine = join(root, 'mine');
  assert.throws(() => loadAddon(ADDON, [theirs], 'better_sqlite3'), /owned by uid 65534/);
  chownSync(theirs, uid, uid);
  chmodSync(theirs, 0o777);
  assert.throws(() => loadAddon(ADDON, [theirs], 'better_sqlite3'), /writable by group or others/);
  assert.deepEqual(readdirSync(theirs), [], 'nothing was written into a refused folder');
  assert.ok(isSqliteAddon(loadAddon(ADDON, [theirs, mine], 'better_sqlite3').exports), 'the next folder is used');
});
