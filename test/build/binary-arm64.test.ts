import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../support/pharos.ts';
import { prepareBinary, serveSmoke, type BinaryUnderTest } from '../support/binary.ts';

// The linux-arm64 single executable (issue 20), cross-built here by `build.sh --target linux-arm64`
// and run under qemu-user (Debian qemu-user-static, with the arm64 glibc of libc6-arm64-cross and
// libstdc++6-arm64-cross as its sysroot; .ci/run installs them). A copy in an empty directory, no
// Node on PATH: version, then serve (the API, a local HTTP target checked, a status page, SIGTERM → 0).
const QEMU = '/usr/bin/qemu-aarch64-static';
const SYSROOT = '/usr/aarch64-linux-gnu';
const dir = tempDir('pharos-arm64-');
let b: BinaryUnderTest;

before(() => {
  assert.ok(existsSync(QEMU) && existsSync(join(SYSROOT, 'lib/ld-linux-aarch64.so.1')), 'qemu-user-static and the arm64 sysroot are installed (.ci/run)');
  b = prepareBinary(dir, 'linux-arm64', [QEMU, '-L', SYSROOT]);
});
after(() => rmSync(dir, { recursive: true, force: true }));

test('the arm64 binary is an aarch64 ELF and prints its versions and target under qemu, with no node anywhere', () => {
  const header = execFileSync('od', ['-An', '-tx1', '-j18', '-N2', b.bin], { encoding: 'utf8' }).trim();
  assert.equal(header, 'b7 00', 'e_machine is EM_AARCH64 (0xb7)');
  const out = execFileSync(b.argv[0]!, [...b.argv.slice(1), 'version'], { cwd: dir, env: b.env(), encoding: 'utf8' });
  assert.match(out, /^pharos \d+\.\d+\.\d+\nnode v24\.\d+\.\d+\nsqlite 3\.\d+\.\d+\ntarget linux-arm64 \(single executable\)\n$/);
});

test('serve under qemu: the API answers, a local HTTP target is checked, a status page renders, SIGTERM exits 0', { timeout: 180_000 }, async () => {
  await serveSmoke(b, dir, 120_000);
});
