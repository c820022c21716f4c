import { createHash, randomBytes } from 'node:crypto';
import { closeSync, lstatSync, mkdirSync, openSync, readFileSync, readSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import sea from 'node:sea';
import { compileFunction } from 'node:vm';
import { libAssetKey, locatePack, readPack } from './sea-pack.ts';

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
 * What `pharos version` prints as the target: `linux-arm64`, `linux-x64`, … and whether this is the
 * single executable or a run from source.
 */
export function buildTarget(): string {
  return `${process.platform}-${process.arch} (${isSea() ? 'single executable' : 'from source'})`;
}

/**
 * Bytes of a file that is a SEA asset in the binary and a package file in the source tree.
 * @param assetKey key in the SEA config's `assets`
 * @param packageFile `<package>/<path>` resolved with `require.resolve` from source
 */
export function bundledFile(assetKey: string, packageFile: string): Buffer {
  if (isSea()) return packed(assetKey);
  return readFileSync(createRequire(import.meta.url).resolve(packageFile));
}

let pack: ReadonlyMap<string, Buffer> | undefined;
/** The pack as one buffer (a view of the binary's mapped pages). */
let packBuffer: Buffer | undefined;

/**
 * A file of the binary's asset pack (the one SEA asset `pharos.pack`, src/lib/sea-pack.ts): a view of
 * the binary's mapped pages, read-only.
 * @throws Error when the pack has no such file (a build.sh that forgot it)
 */
function packed(key: string): Buffer {
  packBuffer ??= Buffer.from(sea.getRawAsset('pharos.pack') as ArrayBuffer);
  pack ??= readPack(packBuffer);
  const bytes = pack.get(key);
  if (!bytes) throw new Error(`the single executable carries no file ${key}`);
  return bytes;
}

/**
 * Lets the main bundle's `require` load the libraries build.sh bundled apart (src/build/bundle.ts):
 * the wrapper at the top of the bundle hands every `pharos-lib:<specifier>` and `pharos-core:<path>`
 * to the function this installs. `pharos-lib:` compiles the pack's `lib/<package>.cjs` once (with
 * that same wrapper as its `require`) and answers its export for the specifier; `pharos-core:`
 * answers a module of the main bundle from the table the bundle's entry filled
 * (`pharos.coreModules`), marked `__esModule` so esbuild's interop reads `default` and the named
 * exports as it would from the module itself. Called once by main.ts; no-op from source.
 */
export function installBundledLibs(): void {
  if (!isSea()) return;
  const libs = new Map<string, Record<string, object>>();
  const answers = new Map<string, object>();
  const load = (id: string, require: NodeJS.Require): object => {
    const known = answers.get(id);
    if (known) return known;
    let answer: object | undefined;
    if (id.startsWith('pharos-core:')) {
      // A namespace of the main bundle: marked `__esModule`, so the lazy bundle's interop reads
      // `default` and the named exports from it as from the module itself.
      const ns = (globalThis as Record<symbol, Record<string, object> | undefined>)[Symbol.for('pharos.coreModules')]?.[id.slice('pharos-core:'.length)];
      if (!ns) throw new Error(`the main bundle holds no module ${id}`);
      const marked: Record<string, unknown> = { __esModule: true };
      for (const key of Object.keys(ns)) if (key !== '__esModule') Object.defineProperty(marked, key, { get: () => (ns as Record<string, unknown>)[key], enumerable: true });
      answer = marked;
    } else {
      // The package's namespace (an `import * as` of it in its bundle); the main bundle's stand-in
      // module for the package reads `default` and the named exports from it (src/build/bundle.ts).
      const spec = id.slice('pharos-lib:'.length);
      const key = libAssetKey(spec);
      let lib = libs.get(key);
      if (!lib) {
        const module = { exports: {} as { libs?: Record<string, object> } };
        const run = compileFunction(packed(key).toString('latin1'), ['exports', 'require', 'module', '__filename', '__dirname'], { filename: `pharos:${key}` });
        run(module.exports, require, module, process.execPath, dirname(process.execPath));
        lib = module.exports.libs ?? {};
        libs.set(key, lib);
      }
      answer = lib[spec];
      if (answer === undefined) throw new Error(`${key} exports no ${spec}`);
    }
    answers.set(id, answer);
    return answer;
  };
  (globalThis as Record<symbol, unknown>)[Symbol.for('pharos.require')] = load;
}

/**
 * Folders the SQLite addon may be written to and loaded from, in the order tried (issue #20):
 * `<data_dir>/native` (when the command has a data dir), `$XDG_CACHE_HOME/pharos` (XDG's default
 * `~/.cache/pharos` when unset and there is a home), `$TMPDIR/pharos-<uid>` (`/tmp` when unset).
 * @param env environment (process.env in production)
 * @param dataDir the configured data dir, or undefined for commands without one (`version`)
 */
export function addonDirs(env: Record<string, string | undefined>, dataDir?: string): string[] {
  const dirs: string[] = [];
  if (dataDir) dirs.push(resolve(dataDir, 'native'));
  const home = env.HOME ?? safeHomedir();
  if (env.XDG_CACHE_HOME) dirs.push(resolve(env.XDG_CACHE_HOME, 'pharos'));
  else if (home) dirs.push(resolve(home, '.cache', 'pharos'));
  dirs.push(resolve(env.TMPDIR || tmpdir(), `pharos-${process.getuid?.() ?? 'user'}`));
  return dirs;
}

function safeHomedir(): string | undefined {
  try {
    return homedir() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Writes a native addon to the first usable folder of `dirs` and loads it with `process.dlopen`.
 * Per folder: create it (mode 0700); refuse it unless it is a real directory owned by this user and
 * not writable by group or others (a shared /tmp cannot hand us someone else's file); the file name
 * is content-addressed (`<name>-<sha256 prefix>.node`), written through a temp file and a rename when
 * missing; its bytes are hashed again and compared before `dlopen`, so a damaged or replaced file is
 * rewritten rather than loaded. A folder that fails (read-only, not ours, a `noexec` mount where
 * `dlopen` fails) is skipped for the next one.
 * @param bytes the addon's bytes, or a function that writes them to a new file (path, mode); then
 *   `hash` is required
 * @param dirs folders to try, in order (see addonDirs)
 * @param name file name stem, e.g. `better_sqlite3`
 * @param hash the bytes' SHA-256 in hex when known (the binary stores it beside the addon, so a start
 *   does not read the addon's bytes unless it writes the file); default: computed from `bytes`
 * @returns the addon's exports and the file it was loaded from
 * @throws Error with a one-line message naming every folder tried and why each failed
 */
export function loadAddon(bytes: Buffer | ((file: string, mode: number) => void), dirs: readonly string[], name: string, hash = sha256(bytes as Buffer)): { exports: object; file: string } {
  const failures: string[] = [];
  for (const dir of dirs) {
    const file = join(dir, `${name}-${hash.slice(0, 16)}.node`);
    let step = 'not writable';
    let tmp: string | null = null;
    try {
      mkdirSync(dirname(dir), { recursive: true, mode: 0o700 });
      try {
        mkdirSync(dir, { mode: 0o700 }); // not recursive: EROFS/EACCES rather than ENOENT on a read-only parent
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      step = 'refused';
      const st = lstatSync(dir);
      const uid = process.getuid?.();
      if (!st.isDirectory()) throw new Error('not a directory');
      if (uid !== undefined && st.uid !== uid) throw new Error(`owned by uid ${st.uid}, not ${uid}`);
      if ((st.mode & 0o022) !== 0) throw new Error('writable by group or others');
      step = 'not writable';
      if (!matches(file, hash)) {
        tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
        if (typeof bytes === 'function') bytes(tmp, 0o700);
        else writeFileSync(tmp, bytes, { mode: 0o700 });
        renameSync(tmp, file);
        tmp = null;
        if (!matches(file, hash)) throw new Error('content changed after writing');
      }
      step = 'cannot load (noexec?)';
      const module = { exports: {} as object };
      process.dlopen(module, file);
      return { exports: module.exports, file };
    } catch (e) {
      if (tmp) rmSync(tmp, { force: true });
      failures.push(`${dir} (${step}: ${reason(e as Error, file)})`);
    }
  }
  throw new Error(
    `cannot load the SQLite addon: tried ${failures.join('; ')}; set PHAROS_DATA_DIR, XDG_CACHE_HOME or TMPDIR to a folder this user can write that is not mounted noexec`,
  );
}

function matches(file: string, hash: string): boolean {
  try {
    return sha256(readFileSync(file)) === hash;
  } catch {
    return false;
  }
}

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
/** An error message on one line without the paths it repeats (`EROFS: read-only file system`). */
const reason = (e: Error, file: string): string =>
  e.message
    .replace(`${file}: `, '')
    .replace(/, \w+ '[^']*'$/, '')
    .replace(/\s+/g, ' ')
    .trim();

/**
 * The better-sqlite3 addon for `new Database(file, { nativeBinding })`, or undefined when running
 * from source (better-sqlite3 then finds its own prebuilt addon). In the binary the addon (asset
 * `better_sqlite3.node`) goes through loadAddon with the folders of addonDirs.
 * @param env environment (process.env in production)
 * @param dataDir the configured data dir, when the command has one
 * @throws Error (one line) naming the folders tried when none could hold and load the addon
 */
export function sqliteNativeBinding(env: Record<string, string | undefined>, dataDir?: string): object | undefined {
  if (!isSea()) return undefined;
  // The hash build.sh stored beside the addon: hashing the addon itself at every start would make
  // its 2 MB of the binary resident for the process's life.
  const { exports, file } = loadAddon((to, mode) => copyPacked('better_sqlite3.node', to, mode), addonDirs(env, dataDir), 'better_sqlite3', packed('better_sqlite3.node.sha256').toString('latin1'));
  addonFiles.set(exports, file);
  return exports;
}

const addonFiles = new WeakMap<object, string>();

/**
 * The file an addon returned by {@link sqliteNativeBinding} was loaded from, so a worker thread can
 * `process.dlopen` the same file (the same library in the process, not a second copy), or undefined
 * for an object that did not come from it.
 */
export function addonFileOf(binding: object): string | undefined {
  return addonFiles.get(binding);
}

/**
 * Writes pack file `key` to the new file `to` (created with `mode`), copied from the executable file
 * through fs in 64 KiB steps (locatePack), so the binary's mapped pages of it are never touched: writing
 * the 2 MB SQLite addon from the mapped pack kept it resident for the process's life (issue 38 point 1,
 * a first start). When the pack cannot be found in the file, the mapped bytes are written instead.
 */
function copyPacked(key: string, to: string, mode: number): void {
  const view = packed(key);
  const head = packBuffer!.subarray(0, Math.min(packBuffer!.length, 4096));
  const packAt = locatePack(process.execPath, head);
  if (packAt === undefined) return writeFileSync(to, view, { mode });
  const from = openSync(process.execPath, 'r');
  const out = openSync(to, 'wx', mode);
  try {
    const chunk = Buffer.alloc(64 * 1024);
    // The view's offset in the pack: both are views of the same mapped asset.
    const start = packAt + (view.byteOffset - packBuffer!.byteOffset);
    for (let done = 0; done < view.length; ) {
      const n = readSync(from, chunk, 0, Math.min(chunk.length, view.length - done), start + done);
      if (n <= 0) throw new Error(`the executable ended ${view.length - done} bytes before ${key}'s end`);
      writeSync(out, chunk, 0, n);
      done += n;
    }
  } finally {
    closeSync(out);
    closeSync(from);
  }
}
