/**
 * The single executable's JavaScript, split so a process holds only what its configuration uses
 * (issue 38 point 1, docs/PERFORMANCE.md "Idle footprint"). Run by build.sh, never imported:
 *
 *   node --import tsx src/build/bundle.ts <out dir>
 *
 * writes `<out dir>/pharos.cjs` (the SEA main script), one `<out dir>/lib-<n>.cjs` per library
 * that `pharos serve` does not load at start, and `<out dir>/lib-assets.json` naming them as
 * assets of the pack (`{"lib/<package>.cjs": "<file>"}`, read by src/build/sea-config.ts).
 *
 * Why: V8 keeps a script's whole source in the heap for as long as the process lives (it compiles
 * functions lazily from it), and the SEA blob's pages it was read from stay resident. One bundle of
 * every library held 14.4 MB of source on an idle server whose start runs ~4 MB of it. Now:
 * - **core**: the packages reached from src/main.ts and src/cli/serve.ts by static imports only (an
 *   esbuild metafile walk that stops at `import()`) stay in the main bundle, as before.
 * - **lazy**: every other package src/ imports (database drivers, gRPC, SSO, mail, MCP, badge fonts,
 *   …) is external in the main bundle as `require("pharos-lib:<specifier>")` and bundled on its own
 *   as the SEA asset `lib/<package>.cjs`, compiled on first use by the loader this file puts at the
 *   top of the main bundle (`LOADER`) and src/lib/sea.ts. Within a lazy bundle a module the main bundle already holds
 *   (same file: zod for MCP, …) is not copied: it is `require("pharos-core:<path>")`, which the
 *   loader answers from a table the main bundle fills at start (`pharos.coreModules`), so objects
 *   crossing between them (a zod schema handed to the MCP SDK) stay of one class.
 * Run from source (tsx) nothing of this applies: `import()` loads from node_modules as usual.
 * @throws Error (exit 1) when esbuild fails or a lazy package's specifier cannot be resolved
 */
import * as esbuild from 'esbuild';
import { writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { libAssetKey } from '../lib/sea-pack.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const OUT = process.argv[2] ? resolve(process.argv[2]) : '';
/** Where `pharos serve` starts: everything these reach without an `import()` loads at start. */
const STARTS = ['src/main.ts', 'src/cli/serve.ts'];

/** esbuild options shared by every bundle (build.sh's, before the split). */
const COMMON: esbuild.BuildOptions = {
  bundle: true, platform: 'node', format: 'cjs', target: 'node24', logLevel: 'warning', legalComments: 'none',
  minifyWhitespace: true, write: false, metafile: true, absWorkingDir: ROOT,
};

const isBare = (spec: string) => !spec.startsWith('.') && !spec.startsWith('/') && !spec.startsWith('node:') && !spec.startsWith('pharos-');

/**
 * The runtime half, put at the top of the main bundle: wraps the bundle's `require` (a SEA main
 * script's loads built-ins only) so `pharos-lib:<spec>` and `pharos-core:<path>` go to the loader
 * src/lib/sea.ts installs (`installBundledLibs`, called first thing by src/main.ts).
 */
const LOADER = `require = ((req) => {
  const wrapped = (id) => typeof id === "string" && id.startsWith("pharos-") ? globalThis[Symbol.for("pharos.require")](id, wrapped) : req(id);
  return Object.assign(wrapped, req);
})(require);`;

/**
 * zod's locales: `z` re-exports all 40-odd of them (`export * as locales`), and since `z` is a
 * namespace the bundle cannot drop the ones never used: ~300 KB of source in every process. Pharos
 * speaks zod's English only (zod sets `en` itself on the first schema), so its locales index is
 * replaced by one exporting `en` alone. `z.locales.<other>` is undefined in the binary.
 */
const zodEnglishOnly: esbuild.Plugin = {
  name: 'zod-english-only',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => (/[\\/]zod[\\/]v4[\\/](classic|core)[\\/]/.test(args.importer) ? { path: 'zod-locales', namespace: 'zod-english-only' } : undefined));
    build.onLoad({ filter: /.*/, namespace: 'zod-english-only' }, () => ({ contents: `export { default as en } from ${JSON.stringify(join(ROOT, 'node_modules/zod/v4/locales/en.js'))};`, loader: 'js', resolveDir: ROOT }));
  },
};

const BANNER = 'const __pharos_import_meta_url = require("node:url").pathToFileURL(__filename).href;';

/** Files (relative to ROOT) reachable from `starts` through imports other than `import()`. */
function staticClosure(meta: esbuild.Metafile, starts: string[]): Set<string> {
  const seen = new Set<string>();
  const queue = [...starts];
  while (queue.length) {
    const file = queue.pop()!;
    if (seen.has(file) || !meta.inputs[file]) continue;
    seen.add(file);
    for (const imp of meta.inputs[file]!.imports) if (imp.kind !== 'dynamic-import' && !imp.external) queue.push(imp.path);
  }
  return seen;
}

async function main(): Promise<void> {
  if (!OUT) throw new Error('usage: node --import tsx src/build/bundle.ts <out dir>');
  // 1. Which packages `serve` loads at start, and every bare specifier src/ imports.
  const srcSpecs = new Map<string, string>(); // specifier → the file it resolved to
  const analysis = await esbuild.build({
    ...COMMON, logLevel: 'silent', entryPoints: ['src/main.ts'], outfile: join(OUT, 'analysis.cjs'),
    define: { 'import.meta.url': '__pharos_import_meta_url' },
    plugins: [{
      name: 'record-specifiers',
      setup(build) {
        build.onResolve({ filter: /.*/ }, async (args) => {
          if (args.pluginData === 'record' || !isBare(args.path) || !args.importer.startsWith(join(ROOT, 'src'))) return undefined;
          const r = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: 'record' });
          if (!r.errors.length && !r.external) srcSpecs.set(args.path, relative(ROOT, r.path));
          return r.errors.length ? undefined : r;
        });
      },
    }],
  });
  const closure = staticClosure(analysis.metafile!, STARTS);
  const lazy = [...srcSpecs].filter(([, file]) => !closure.has(file)).map(([spec]) => spec);
  const lazySet = new Set(lazy);
  const byPackage = new Map<string, string[]>();
  for (const spec of lazy) byPackage.set(libAssetKey(spec), [...(byPackage.get(libAssetKey(spec)) ?? []), spec]);

  // 2. One bundle per lazy package; modules the main bundle holds stay there (pharos-core:).
  const shared = new Set<string>();
  const assets: Record<string, string> = {};
  let n = 0;
  for (const [key, specs] of [...byPackage].sort()) {
    // `import * as`: the module as an import of it from source sees it (the package's ESM build where
    // it has one; a CommonJS package's `module.exports` as its default).
    const entry = specs.map((s, i) => `import * as m${i} from ${JSON.stringify(s)};`).join('\n')
      + `\nexport const libs = { ${specs.map((s, i) => `${JSON.stringify(s)}: m${i}`).join(', ')} };\n`;
    const lib = await esbuild.build({
      ...COMMON, stdin: { contents: entry, resolveDir: join(ROOT, 'src'), sourcefile: key },
      outfile: join(OUT, `lib-${n}.cjs`),
      plugins: [zodEnglishOnly, {
        name: 'share-core',
        setup(build) {
          build.onResolve({ filter: /.*/ }, async (args) => {
            if (args.pluginData === 'share' || !isBare(args.path) || args.kind === 'entry-point') return undefined;
            const r = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: 'share' });
            if (r.errors.length || r.external) return undefined;
            const file = relative(ROOT, r.path);
            if (closure.has(file)) { shared.add(file); return { path: `pharos-core:${file}`, external: true }; }
            return r;
          });
        },
      }],
    });
    writeFileSync(join(OUT, `lib-${n}.cjs`), lib.outputFiles![0]!.text);
    assets[key] = join(OUT, `lib-${n}.cjs`);
    n++;
  }

  // 3. The main bundle: lazy specifiers external, the shared modules in the core table.
  const sharedList = [...shared].sort();
  const entry = sharedList.map((f, i) => `import * as c${i} from ${JSON.stringify(join(ROOT, f))};`).join('\n')
    + `\nglobalThis[Symbol.for("pharos.coreModules")] = { ${sharedList.map((f, i) => `${JSON.stringify(f)}: c${i}`).join(', ')} };\n`
    + `import ${JSON.stringify(join(ROOT, 'src/main.ts'))};\n`;
  const out = await esbuild.build({
    ...COMMON, stdin: { contents: entry, resolveDir: ROOT, sourcefile: 'pharos-entry.js' }, outfile: join(OUT, 'pharos.cjs'),
    define: { 'import.meta.url': '__pharos_import_meta_url' },
    banner: { js: `${BANNER}\n${LOADER}` },
    // A dynamic import of a lazy package becomes `Promise.resolve().then(() => require(…))`, through the loader.
    supported: { 'dynamic-import': false },
    plugins: [zodEnglishOnly, {
      name: 'lazy-packages',
      setup(build) {
        // src/'s import of a lazy package → a module of our own standing for it: its default export
        // and (`export *`, copied at run time) its named ones, from the namespace the loader answers.
        // Not esbuild's interop of an external require: in an ES module that makes `default` the
        // whole namespace (Node's rule for CommonJS), which broke `import ical from 'ical-generator'`.
        build.onResolve({ filter: /^pharos-lib:/ }, (args) => ({ path: args.path, external: true }));
        build.onResolve({ filter: /.*/ }, (args) => (lazySet.has(args.path) && args.importer.startsWith(join(ROOT, 'src')) ? { path: args.path, namespace: 'pharos-lazy' } : undefined));
        build.onLoad({ filter: /.*/, namespace: 'pharos-lazy' }, (args) => {
          const id = JSON.stringify(`pharos-lib:${args.path}`);
          return { contents: `const ns = require(${id});\nexport default ns.default;\nexport * from ${id};\n`, loader: 'js', resolveDir: ROOT };
        });
      },
    }],
  });
  writeFileSync(join(OUT, 'pharos.cjs'), out.outputFiles![0]!.text);
  process.stderr.write(`bundle: main ${(out.outputFiles![0]!.contents.length / 2 ** 20).toFixed(1)} MiB; ${byPackage.size} lazy packages (${Object.values(assets).length} assets); ${sharedList.length} modules shared with them\n`);
  writeFileSync(join(OUT, 'lib-assets.json'), `${JSON.stringify(assets, null, 2)}\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  main().catch((e: unknown) => {
    process.stderr.write(`bundle: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  });
}
