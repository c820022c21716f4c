import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../support/pharos.ts';

// Issue 38 point 1: what the single executable's main bundle (src/build/bundle.ts, the script every
// `pharos` process holds in its heap as long as it runs) leaves out. zod's locales: only English
// (zod's own default) — `z` re-exports some 40 locales, ~300 KB of source no process used. undici:
// only its dispatchers (src/lib/undici.ts) — its index also brings fetch, WebSocket, the cache
// stores and the mock agents. Both are read in the bundle's text, by a phrase each part alone holds.
const dir = tempDir('pharos-bundle-');
after(() => rmSync(dir, { recursive: true, force: true }));

test("the main bundle holds zod's English messages and none of its other locales, and undici's dispatchers without its fetch", { timeout: 120_000 }, () => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/build/bundle.ts', dir], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const main = readFileSync(join(dir, 'pharos.cjs'), 'utf8');
  assert.ok(main.includes('Invalid input: expected'), "zod's English locale (zod/v4/locales/en.js) is in the bundle");
  assert.ok(!main.includes('Input tidak valid'), "zod's Indonesian locale (zod/v4/locales/id.js) is not");
  assert.ok(!main.includes('Ongeldige invoer'), "zod's Dutch locale (zod/v4/locales/nl.js) is not");
  assert.ok(main.includes('UND_ERR_CONNECT_TIMEOUT'), "undici's dispatchers (lib/core/connect.js, lib/core/errors.js) are in the bundle");
  assert.ok(!main.includes("'fetch failed'") && !main.includes('"fetch failed"'), "undici's fetch (lib/web/fetch/index.js) is not");
});
