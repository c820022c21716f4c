/**
 * Writes the SEA config for one target (build.sh, CONTRACT.md "Runtime and packaging"):
 *
 *   FONT_ASSETS='{"font/<file>": "<path>", …}' node --import tsx src/build/sea-config.ts <work dir> <arch> <true|false: code cache>
 *
 * reads `<work dir>/pharos.cjs` (the main script), the worker bundles and `<work dir>/lib-assets.json`
 * (src/build/bundle.ts), packs every file the binary carries into `<work dir>/pharos.pack` (one SEA
 * asset: src/lib/sea-pack.ts says why) and writes `<work dir>/sea-config.json`. The SQLite addon's
 * SHA-256 travels beside it (`better_sqlite3.node.sha256`), so a start need not hash the addon.
 * @throws Error (exit 1) on a missing file or a key given twice (a clash would drop a file silently)
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { packAssets } from '../lib/sea-pack.ts';

const ROOT = resolve(import.meta.dirname, '../..');

/**
 * execArgv: a 2 MiB young-generation semi-space instead of V8's default (up to 32 MiB on a big
 * machine) trims ~110 MB of RSS at 10,000 monitors for ~0.03 core more GC; and the old generation may
 * grow to 2× the live heap before a major GC (V8 picks up to 4× when GC looks cheap, which held
 * ~220 MB of garbage at 10,000 monitors): peak RSS ~450 → ~270 MB. 1.3× gave ~220 MB but major GCs
 * often enough to raise the scheduler's lag p99 (docs/PERFORMANCE.md). --optimize-for-size (V8: GC
 * and compiler heuristics that favour memory over speed; issue 38): idle 96 → 88 MB, 1,000 monitors
 * 172 → 151–165 MB peak, 10,000 on distinct origins ~217 MB at the end of the window, with the same
 * CPU per check (0.62–0.65 vs 0.64–0.65 ms, alternating runs of bench/monitors.ts). --liftoff-only:
 * undici parses HTTP with llhttp compiled to WebAssembly, and V8's optimizing tier recompiled its
 * parser on background threads once checks ran, ~24 MB of compiler memory that glibc kept (heaptrack:
 * turboshaft's wasm pipeline, LoopUnrollingPhase); with WebAssembly left on its baseline compiler the
 * peak at 10,000 monitors on distinct origins went 234–237 → 223 MB, CPU per check unchanged
 * (0.70–0.86 vs 0.70–0.76 ms at 1,000 monitors, 0.43–0.44 vs 0.42–0.44 core at 10,000).
 * --no-concurrent-recompilation --no-maglev: TurboFan compiles hot functions on the main thread
 * instead of on V8's worker threads, whose glibc arenas kept ~20 MB of compiler memory once checks
 * ran, and Maglev (whose concurrent jobs, with TurboFan's off, now and then left a V8 worker waiting
 * forever at process exit: `pharos token list` hung in 4 of 30 runs; 0 of 150 without Maglev) is
 * off. 1,000 monitors: peak 160 → 116–117 MB with the checkpoint thread on demand (137 without
 * it); CPU per check and scheduler lag the same (bench/monitors.ts at 1,000, alternating runs).
 * Idle costs ~3 MB more (TurboFan's own code is paged in by the few functions hot at start, which
 * Maglev took before). Without TurboFan at all: 126 MB but ~25 % more CPU; Maglev alone: 169 MB.
 * --no-turbofan at start only: `pharos serve` and `pharos agent` turn TurboFan on once started
 * (src/lib/optimizer.ts). Start made seven of zod's functions hot enough for TurboFan, and compiling
 * them paged in ~6 MB of TurboFan's machine code that an idle process held for nothing. build.sh
 * makes the blob under these same flags (read back from sea-config.json: V8's flag hash, which the
 * code cache must match, includes some of them).
 */
const EXEC_ARGV = ['--max-semi-space-size=2', '--heap-growing-percent=100', '--optimize-for-size', '--liftoff-only', '--no-concurrent-recompilation', '--no-maglev', '--no-turbofan'];

function main(): void {
  const [work, arch, codeCache] = process.argv.slice(2);
  if (!work || !arch || !codeCache) throw new Error('usage: node --import tsx src/build/sea-config.ts <work dir> <arch> <true|false>');
  const addon = join(ROOT, `node_modules/better-sqlite3/prebuilds/linux-${arch}.node`);
  const files: Record<string, string> = {
    'better_sqlite3.node': addon,
    'swagger-ui.css': join(ROOT, 'node_modules/swagger-ui-dist/swagger-ui.css'),
    'swagger-ui-bundle.js': join(ROOT, 'node_modules/swagger-ui-dist/swagger-ui-bundle.js'),
    'htmx.min.js': join(ROOT, 'node_modules/htmx.org/dist/htmx.min.js'),
    'pg-worker.cjs': join(work, 'pg-worker.cjs'),
    'checkpoint-worker.cjs': join(work, 'checkpoint-worker.cjs'),
    'verify-worker.cjs': join(work, 'verify-worker.cjs'),
    'store-host.cjs': join(work, 'store-host.cjs'),
  };
  const fonts = JSON.parse(process.env.FONT_ASSETS ?? '{}') as Record<string, string>;
  const libs = JSON.parse(readFileSync(join(work, 'lib-assets.json'), 'utf8')) as Record<string, string>;
  for (const [key, file] of [...Object.entries(fonts), ...Object.entries(libs)]) {
    if (key in files) throw new Error(`duplicate SEA asset ${key}`);
    files[key] = resolve(ROOT, file);
  }
  const bytes = new Map<string, Buffer>();
  for (const [key, file] of Object.entries(files)) bytes.set(key, readFileSync(file)); // throws ENOENT naming a missing file
  bytes.set('better_sqlite3.node.sha256', Buffer.from(createHash('sha256').update(bytes.get('better_sqlite3.node')!).digest('hex'), 'latin1'));
  writeFileSync(join(work, 'pharos.pack'), packAssets(bytes));
  const config = {
    main: join(work, 'pharos.cjs'),
    output: join(work, 'sea-prep.blob'),
    disableExperimentalSEAWarning: true,
    useCodeCache: codeCache === 'true',
    execArgv: EXEC_ARGV,
    assets: { 'pharos.pack': join(work, 'pharos.pack') },
  };
  writeFileSync(join(work, 'sea-config.json'), `${JSON.stringify(config, null, 2)}\n`);
}

try {
  main();
} catch (e) {
  process.stderr.write(`sea-config: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
}
