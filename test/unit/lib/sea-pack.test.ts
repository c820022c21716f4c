import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { libAssetKey, locatePack, packAssets, readPack } from '../../../src/lib/sea-pack.ts';

// The single executable's one asset (src/lib/sea-pack.ts): every file comes back byte for byte, as
// a view of the pack (no copy), and anything that is not a pack is refused.
test('a pack gives every file back byte for byte, as views of the pack itself', () => {
  const files = new Map<string, Buffer>([
    ['font/a.woff2', Buffer.from([0, 1, 2, 255])],
    ['lib/@grpc/grpc-js.cjs', Buffer.from('module.exports = { libs: {} };\n')],
    ['empty', Buffer.alloc(0)],
    ['név', Buffer.from('ünïcode key')],
  ]);
  const pack = packAssets(files);
  const read = readPack(pack);
  assert.deepEqual([...read.keys()], [...files.keys()]);
  for (const [key, bytes] of files) assert.deepEqual(read.get(key), bytes, key);
  const view = read.get('font/a.woff2')!;
  assert.equal(view.buffer, pack.buffer, 'a view of the pack, not a copy');
});

test('readPack refuses what is not a pack and an index that runs past the end', () => {
  assert.throws(() => readPack(Buffer.from('not a pack at all')), /not an asset pack/);
  assert.throws(() => readPack(Buffer.alloc(3)), /not an asset pack/);
  const pack = packAssets(new Map([['x', Buffer.from('0123456789')]]));
  assert.throws(() => readPack(pack.subarray(0, pack.length - 1)), /asset x runs past the pack's end/);
  assert.throws(() => packAssets(new Map([['', Buffer.alloc(1)]])), /needs a key/);
});

test('a lazily loaded library is one bundle per package: every subpath of a package names the same key', () => {
  assert.equal(libAssetKey('mongodb'), 'lib/mongodb.cjs');
  assert.equal(libAssetKey('mysql2/promise'), 'lib/mysql2.cjs');
  assert.equal(libAssetKey('@grpc/grpc-js'), 'lib/@grpc/grpc-js.cjs');
  assert.equal(libAssetKey('@modelcontextprotocol/sdk/server/mcp.js'), 'lib/@modelcontextprotocol/sdk.cjs');
  assert.equal(libAssetKey('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'), 'lib/@modelcontextprotocol/sdk.cjs');
});

/**
 * A minimal ELF64 little-endian file: its header, program headers (`[type, offset, size]` each), and
 * `body` written at `bodyAt`.
 */
function elfFile(phdrs: Array<[number, number, number]>, body: Buffer, bodyAt: number): Buffer {
  const file = Buffer.alloc(bodyAt + body.length);
  file.writeUInt32BE(0x7f454c46, 0);
  file[4] = 2; // 64-bit
  file[5] = 1; // little-endian
  file.writeBigUInt64LE(64n, 0x20); // e_phoff
  file.writeUInt16LE(56, 0x36); // e_phentsize
  file.writeUInt16LE(phdrs.length, 0x38); // e_phnum
  phdrs.forEach(([type, offset, size], i) => {
    const at = 64 + i * 56;
    file.writeUInt32LE(type, at);
    file.writeBigUInt64LE(BigInt(offset), at + 8);
    file.writeBigUInt64LE(BigInt(size), at + 32);
  });
  body.copy(file, bodyAt);
  return file;
}

// Issue 38 point 1: the binary copies the SQLite addon out of its own file through fs (the page
// cache) instead of its mapped pages; locatePack finds the pack in the executable's note segment.
test('locatePack finds the pack in an ELF note segment, across a read boundary, and nowhere else', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pharos-locate-'));
  try {
    const pack = packAssets(new Map([['better_sqlite3.node', Buffer.from('addon bytes')]]));
    const head = pack.subarray(0, 16);
    // The head starts 8 bytes before the end of the first 256 KiB read: found by the overlap.
    const noteAt = 4096;
    const before = Buffer.alloc((1 << 18) - 8, 7);
    const note = Buffer.concat([before, pack, Buffer.alloc(100)]);
    const file = join(dir, 'elf');
    writeFileSync(file, elfFile([[1, 0, 4096], [4, noteAt, note.length]], note, noteAt));
    assert.equal(locatePack(file, head), noteAt + before.length);
    // The same bytes outside any note segment are not looked at.
    writeFileSync(file, elfFile([[1, noteAt, note.length]], note, noteAt));
    assert.equal(locatePack(file, head), undefined);
    // Not an ELF file.
    writeFileSync(file, pack);
    assert.equal(locatePack(file, head), undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
