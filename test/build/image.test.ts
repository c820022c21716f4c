import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../support/pharos.ts';
import { prepareBinary, releaseBuild } from '../support/binary.ts';
import { freePort, waitFor } from '../support/process.ts';
import { httpTarget } from '../support/targets.ts';
import { startPostgres } from '../support/postgres.ts';

// `build.sh --image` (issue 37 point 1): OCI images for linux/amd64 and linux/arm64 written without a
// Docker daemon. The amd64 image runs under Debian's podman (root, vfs storage and runc in a temp
// dir: .ci/run installs podman and runc; crun 1.8 refuses this machine's hybrid cgroups), on the
// host network with env-only configuration: the API answers, a check of a local target runs, the
// health check passes, `podman stop` (SIGTERM) drains and exits 0, and a new container on the same
// volume has the data. The arm64 image's own root filesystem is the sysroot its binary runs on
// under qemu-user (test/build/release.test.ts runs the same binary's serve with Debian's cross libraries).
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const IMAGE = `docker.io/library/pharos:${VERSION}`;
const QEMU = '/usr/bin/qemu-aarch64-static';
const TOKEN = 'image-smoke-token-0123456789';
const dir = tempDir('pharos-image-');

/** podman with its own storage in `dir` (vfs: no overlay mounts), cgroupfs, runc, file events. */
const podmanArgs = ['--root', join(dir, 'root'), '--runroot', join(dir, 'run'), '--storage-driver', 'vfs', '--cgroup-manager', 'cgroupfs', '--runtime', 'runc', '--events-backend', 'file'];
const podman = (...args: string[]) => execFileSync('podman', [...podmanArgs, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
// This machine's root may lower rlimits but not raise them (no CAP_SYS_RESOURCE): podman's defaults
// (nofile 1048576, nproc = the host's) fail in setrlimit, so the container gets explicit ones.
const nofile = execFileSync('sh', ['-c', 'ulimit -Hn'], { encoding: 'utf8' }).trim();
let loaded = '';
const LIMITS = ['--pull', 'never', '--ulimit', `nofile=${nofile}:${nofile}`, '--ulimit', 'nproc=4096:4096'];

before(async () => {
  for (const tool of ['podman', 'runc']) assert.equal(spawnSync('sh', ['-c', `command -v ${tool}`]).status, 0, `${tool} is installed (.ci/run)`);
  assert.ok(existsSync(QEMU), 'qemu-user-static is installed (.ci/run)');
  await releaseBuild();
  loaded = podman('load', '-i', join(ROOT, 'dist', `pharos-${VERSION}.oci.tar`));
});
after(() => {
  spawnSync('podman', [...podmanArgs, 'rm', '--all', '--force'], { stdio: 'ignore' });
  rmSync(dir, { recursive: true, force: true });
});

/** The OCI layout inside an oci-archive, unpacked into `into`. */
function unpackLayout(archive: string, into: string): { index: { manifests: Array<{ digest: string; mediaType: string; annotations?: Record<string, string> }> }; blob: (digest: string) => string } {
  mkdirSync(into, { recursive: true });
  execFileSync('tar', ['-xf', archive, '-C', into]);
  const blob = (digest: string) => join(into, 'blobs', 'sha256', digest.replace(/^sha256:/, ''));
  return { index: JSON.parse(readFileSync(join(into, 'index.json'), 'utf8')), blob };
}
const json = <T>(file: string) => JSON.parse(readFileSync(file, 'utf8')) as T;
type Manifest = { config: { digest: string }; layers: Array<{ digest: string; mediaType: string }> };
type Config = { architecture: string; config: Record<string, unknown>; rootfs: { diff_ids: string[] } };

test('the multi-arch archive is an image index of linux/amd64 and linux/arm64, named <version>; each image: non-root, /data volume, SIGTERM, health check, env config', () => {
  const { index, blob } = unpackLayout(join(ROOT, 'dist', `pharos-${VERSION}.oci.tar`), join(dir, 'layout-all'));
  assert.equal(index.manifests.length, 1);
  assert.equal(index.manifests[0]!.mediaType, 'application/vnd.oci.image.index.v1+json');
  assert.equal(index.manifests[0]!.annotations?.['org.opencontainers.image.ref.name'], VERSION);
  const images = json<{ manifests: Array<{ digest: string; platform: { architecture: string; os: string } }> }>(blob(index.manifests[0]!.digest)).manifests;
  assert.deepEqual(images.map((m) => `${m.platform.os}/${m.platform.architecture}`), ['linux/amd64', 'linux/arm64']);
  for (const m of images) {
    const manifest = json<Manifest>(blob(m.digest));
    const config = json<Config>(blob(manifest.config.digest));
    assert.equal(config.architecture, m.platform.architecture);
    assert.equal(config.config.User, '10001:10001');
    assert.deepEqual(config.config.Volumes, { '/data': {} });
    assert.equal(config.config.StopSignal, 'SIGTERM');
    assert.deepEqual(config.config.Entrypoint, ['/usr/local/bin/pharos']);
    assert.deepEqual(config.config.Cmd, ['serve']);
    assert.ok((config.config.Env as string[]).includes('PHAROS_DATA_DIR=/data'));
    assert.deepEqual((config.config.Healthcheck as { Test: string[] }).Test, ['CMD', '/usr/local/bin/pharos', 'healthcheck']);
    // Every blob is what its digest says.
    for (const d of [m.digest, manifest.config.digest, ...manifest.layers.map((l) => l.digest)]) {
      assert.equal(`sha256:${execFileSync('sha256sum', [blob(d)], { encoding: 'utf8' }).split(' ')[0]}`, d);
    }
  }
  // The files: the binary, CA bundle, tzdata, setuid ping, the user, /data owned by it.
  const amd64 = json<Manifest>(blob(images[0]!.digest));
  const listing = amd64.layers.flatMap((l) => execFileSync('tar', ['-tvzf', blob(l.digest)], { encoding: 'utf8', maxBuffer: 64 << 20 }).trim().split('\n'));
  const entry = (path: string) => listing.find((l) => l.endsWith(` ${path}`) || l.endsWith(` ${path}/`) || l.includes(` ${path} -> `));
  assert.match(entry('usr/local/bin/pharos') ?? '', /^-rwxr-xr-x 0\/0 /);
  assert.match(entry('bin/ping') ?? '', /^-rwsr-xr-x 0\/0 /);
  assert.match(entry('data') ?? '', /^drwxr-x--- 10001\/10001 /);
  assert.ok(entry('etc/ssl/certs/ca-certificates.crt') && entry('usr/share/zoneinfo/Europe/Paris') && entry('etc/passwd'));
});

test('podman: the amd64 image serves from env-only configuration, checks a local target, passes its health check, drains on stop; a new container on the same volume has the data', { timeout: 240_000 }, async () => {
  assert.match(loaded, new RegExp(`Loaded image: ${IMAGE.replace(/[.]/g, '\\.')}`));
  assert.equal(podman('image', 'inspect', '--format', '{{.Architecture}} {{.Config.User}}', IMAGE), 'amd64 10001:10001', 'podman picks this machine\u2019s image from the index');
  podman('volume', 'create', 'pharos-data');
  const target = await httpTarget();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const api = (path: string, init: RequestInit = {}) => fetch(url + path, { ...init, headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' } });
  // Podman ignores Docker's Healthcheck field in an OCI image: the same command as --health-cmd.
  const run = (name: string) =>
    podman('run', '-d', '--name', name, '--network', 'host', ...LIMITS, '-v', 'pharos-data:/data', '-e', `PHAROS_LISTEN=127.0.0.1:${port}`, '-e', `PHAROS_ADMIN_TOKEN=${TOKEN}`, '--health-cmd', '["/usr/local/bin/pharos","healthcheck"]', '--health-interval', 'disable', IMAGE);
  try {
    run('pharos-1');
    await waitFor('the container to listen', async () => (await fetch(`${url}/healthz`).catch(() => null))?.ok, 60_000);
    const created = await api('/v1/monitors', { method: 'POST', body: JSON.stringify({ name: 'from-container', url: `${target.url}health`, check_frequency: 10 }) });
    assert.equal(created.status, 201);
    await waitFor('a check of the local target', async () => target.hits > 0, 30_000);
    await waitFor('the check to be counted', async () => /pharos_checks_total\{protocol="http",result="up"\} [1-9]/.test(await (await api('/metrics')).text()), 20_000);
    assert.equal(spawnSync('podman', [...podmanArgs, 'healthcheck', 'run', 'pharos-1']).status, 0, '`pharos healthcheck` inside the container says healthy');
    podman('stop', '--time', '60', 'pharos-1');
    assert.equal(podman('inspect', '--format', '{{.State.ExitCode}}', 'pharos-1'), '0', 'SIGTERM: a graceful stop, exit 0');
    const logs = spawnSync('podman', [...podmanArgs, 'logs', 'pharos-1'], { encoding: 'utf8' });
    assert.match(logs.stdout + logs.stderr, /shutting down \(SIGTERM\)/);
    const volume = podman('volume', 'inspect', '--format', '{{.Mountpoint}}', 'pharos-data');
    assert.equal(statSync(join(volume, 'pharos.db')).uid, 10001, 'the database belongs to the image\u2019s pharos user');
    const wal = join(volume, 'pharos.db-wal');
    assert.ok(!existsSync(wal) || statSync(wal).size === 0, 'the WAL was checkpointed on stop');
    podman('rm', 'pharos-1');

    run('pharos-2');
    await waitFor('the second container to listen', async () => (await fetch(`${url}/healthz`).catch(() => null))?.ok, 60_000);
    assert.match(await (await api('/v1/monitors')).text(), /"name":"from-container"/, 'the monitor survived the container');
    const hits = target.hits;
    await waitFor('checks again from the new container', async () => target.hits > hits, 30_000);
  } finally {
    spawnSync('podman', [...podmanArgs, 'stop', '--time', '30', 'pharos-1', 'pharos-2'], { stdio: 'ignore' });
    await target.stop();
  }
});

test('podman: the amd64 image on PostgreSQL, configured by PHAROS_DATABASE_URL alone (docs/operations.md: Compose, Pharos + PostgreSQL)', { timeout: 120_000 }, async (t) => {
  const pg = await startPostgres();
  t.after(() => pg.cleanup());
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  podman('run', '-d', '--name', 'pharos-pg', '--network', 'host', ...LIMITS, '-v', 'pharos-pg-data:/data', '-e', `PHAROS_LISTEN=127.0.0.1:${port}`, '-e', `PHAROS_ADMIN_TOKEN=${TOKEN}`, '-e', `PHAROS_DATABASE_URL=${pg.url}`, IMAGE);
  try {
    await waitFor('the container to listen', async () => (await fetch(`${url}/healthz`).catch(() => null))?.ok, 60_000);
    const created = await fetch(`${url}/v1/monitors`, { method: 'POST', headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'on-pg', url: 'http://127.0.0.1:9/', check_frequency: 60 }) });
    assert.equal(created.status, 201);
  } finally {
    spawnSync('podman', [...podmanArgs, 'stop', '--time', '30', 'pharos-pg'], { stdio: 'ignore' });
  }
  assert.equal(podman('inspect', '--format', '{{.State.ExitCode}}', 'pharos-pg'), '0');
  const c = pg.admin('pharos');
  await c.connect();
  try {
    assert.deepEqual((await c.query('SELECT name FROM monitors')).rows.map((r: { name: string }) => r.name), ['on-pg'], 'the monitor is in PostgreSQL');
  } finally {
    await c.end();
  }
});

test('the arm64 image: its binary runs under qemu-user on the image\u2019s own root filesystem (glibc, libstdc++)', { timeout: 120_000 }, () => {
  const { index, blob } = unpackLayout(join(ROOT, 'dist', `pharos-${VERSION}-linux-arm64.oci.tar`), join(dir, 'layout-arm64'));
  const manifest = json<Manifest>(blob(index.manifests[0]!.digest));
  const rootfs = join(dir, 'rootfs-arm64');
  mkdirSync(rootfs);
  for (const layer of manifest.layers) execFileSync('tar', ['-xzf', blob(layer.digest), '-C', rootfs, '--no-same-owner']);
  const bin = join(rootfs, 'usr/local/bin/pharos');
  assert.equal(execFileSync('od', ['-An', '-tx1', '-j18', '-N2', bin], { encoding: 'utf8' }).trim(), 'b7 00', 'an arm64 ELF');
  const run = join(dir, 'arm64');
  mkdirSync(run);
  const b = prepareBinary(run, bin, [QEMU, '-L', rootfs]);
  const out = execFileSync(b.argv[0]!, [...b.argv.slice(1), 'version'], { cwd: run, env: b.env(), encoding: 'utf8' });
  assert.match(out, /target linux-arm64 \(single executable\)/);
  // `serve` of this same binary under qemu is test/build/release.test.ts's (serveSmoke); not twice.
});
