import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync, existsSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';
import sea from 'node:sea';

/**
 * Single-executable support (CONTRACT.md "Runtime and packaging"). Inside `dist/pharos` the code is
 * one CJS bundle whose `require` loads only built-ins, so files the source tree reads from
 * node_modules travel as SEA assets instead.
 */

/** True when running inside the single executable built by build.sh. */
export function isSea(): boolean {
  return sea.isSea();
}

/**
 * Bytes of a file that is a SEA asset in the binary and a package file in the source tree.
 * @param assetKey key in the SEA config's `assets`
 * @param packageFile `<package>/<path>` resolved with `require.resolve` from source
 */
export function bundledFile(assetKey: string, packageFile: string): Buffer {
  if (isSea()) return Buffer.from(sea.getRawAsset(assetKey) as ArrayBuffer);
  return readFileSync(createRequire(import.meta.url).resolve(packageFile));
}

/**
 * The better-sqlite3 addon for `new Database(file, { nativeBinding })`, or undefined when running
 * from source (better-sqlite3 then finds its own prebuilt addon).
 *
 * In the binary, the addon (asset `better_sqlite3.node`) is written once to a per-user cache folder
 * (`$XDG_CACHE_HOME/pharos` or `~/.cache/pharos`, mode 0700) under a content-hashed name via a temp
 * file and a rename, never to a predictable path in a shared /tmp, then loaded with
 * `process.dlopen`.
 * @throws Error naming the folder when the addon cannot be written or loaded (e.g. a noexec mount)
 */
export function sqliteNativeBinding(env: Record<string, string | undefined>): object | undefined {
  if (!isSea()) return undefined;
  const bytes = Buffer.from(sea.getRawAsset('better_sqlite3.node') as ArrayBuffer);
  const dir = join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'pharos');
  const file = join(dir, `better_sqlite3-${createHash('sha256').update(bytes).digest('hex').slice(0, 16)}.node`);
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!existsSync(file)) {
      writeFileSync(tmp, bytes, { mode: 0o700 });
      renameSync(tmp, file);
    }
    const module = { exports: {} as object };
    process.dlopen(module, file);
    return module.exports;
  } catch (e) {
    rmSync(tmp, { force: true });
    throw new Error(`cannot load the SQLite addon from ${file}: ${(e as Error).message} (a noexec mount? set XDG_CACHE_HOME to a folder that allows executables)`);
  }
}
