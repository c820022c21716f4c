import { test } from 'node:test';
import assert from 'node:assert/strict';
import { libAssetKey, packAssets, readPack } from '../../../src/lib/sea-pack.ts';

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
