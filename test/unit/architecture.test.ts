import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

// House rule 8: the import arrows of ARCHITECTURE.md, read from the source.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SRC = join(ROOT, 'src');
const VIEWS = join(ROOT, 'views');
const ALLOWED: Record<string, string[]> = {
  lib: ['lib'],
  // build.sh's steps (src/build/): they make the binary and are never imported by it.
  build: ['build', 'lib'],
  config: ['config', 'lib', 'domain'],
  domain: ['domain', 'lib'],
  store: ['store', 'domain', 'lib'],
  core: ['core', 'store', 'domain', 'lib', 'config'],
  engine: ['engine', 'core', 'domain', 'lib'],
  // `pharos agent`: the engine's wheel and probes, talking to the main over HTTP only.
  agent: ['agent', 'engine', 'domain', 'lib'],
  alerting: ['alerting', 'core', 'domain', 'store', 'lib', 'config'],
  // High availability (issue 22): leadership, the instances listing and the change relay. The PostgreSQL
  // leader lock, heartbeats and LISTEN/NOTIFY run on its own async `pg` connection (BRIEF design decision).
  cluster: ['cluster', 'core', 'domain', 'lib'],
  // HTTPS served by Pharos (issue 37): ACME certificates for status pages' hosts (core), failure notices (store outbox).
  tls: ['tls', 'core', 'store', 'domain', 'lib', 'config'],
  http: ['http', 'core', 'domain', 'lib', 'config', 'engine', 'views'],
  // Templates render what http hands them: domain values and view-model types, never a store handle.
  views: ['views', 'domain'],
  // src/cli/<command>.ts: one module per CLI command, wiring like main.ts (it may use root modules).
  cli: ['cli', 'agent', 'engine', 'alerting', 'http', 'core', 'store', 'domain', 'lib', 'config'],
  // Protocol plugins (src/protocols/, docs/architecture.md "Adding a protocol"): a definition
  // (the registry, shared helpers, each <name>/index.ts) is as pure as domain and may be imported
  // wherever domain may; a probe (every other file of a <name>/ folder) is engine code.
  protocols: ['protocols', 'domain', 'lib'],
  'protocol-probe': ['protocol-probe', 'protocols', 'domain', 'lib'],
};
// Every layer that may import domain may import the protocol definitions, and no one imports a probe
// statically but its own folder: the definition reaches it through `loadProbe: () => import('./probe.ts')`.
for (const [layer, allowed] of Object.entries(ALLOWED)) if (allowed.includes('domain') && !allowed.includes('protocols')) allowed.push('protocols');
ALLOWED.domain!.push('protocols');
// http may name engine types only for metrics wiring (EngineMetrics); it never calls the engine.
const TYPE_ONLY: Record<string, string[]> = { http: ['engine'], core: ['config'], views: ['core', 'store', 'http'], cluster: ['store'] };
// Packages that belong to one layer only. undici's modules are loaded in lib/undici.ts alone (its dispatchers without
// the package index: issue 38, test/build/bundle.test.ts); the layers that make requests import them from there.
const PACKAGE_OWNERS: Record<string, string[]> = {
  'better-sqlite3': ['store', 'root'], hono: ['http', 'views', 'root'], '@hono/node-server': ['http', 'root'], '@hono/zod-openapi': ['http'],
  undici: ['engine', 'alerting', 'protocol-probe', 'lib'], ping: ['protocol-probe'], nodemailer: ['alerting'], 'openid-client': ['http'], '@node-saml/node-saml': ['http'],
  pg: ['protocol-probe', 'store', 'cluster'], mysql2: ['protocol-probe'], redis: ['protocol-probe'], '@grpc/grpc-js': ['protocol-probe'], 'jsonpath-plus': ['protocol-probe'],
};

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    // Tests beside a protocol (src/protocols/<name>/<name>.test.ts) are tests, not layers.
    return statSync(p).isDirectory() ? files(p) : /\.tsx?$/.test(f) && !f.endsWith('.test.ts') ? [p] : [];
  });
}

const layerOf = (file: string) => {
  const rel = relative(ROOT, file).split('/');
  if (rel[0] === 'views') return 'views';
  if (rel[1] === 'protocols') return rel.length === 4 && rel[3] !== 'index.ts' ? 'protocol-probe' : 'protocols';
  return rel.length === 2 ? 'root' : rel[1]!;
};

/**
 * Every module a source file pulls in: static imports (`import … from`, `import type … from`,
 * side-effect `import '…'`), re-exports (`export … from`, `export type … from`, `export * from`)
 * and dynamic `import('…')`. `typeOnly` for `import type` / `export type` (erased at build).
 */
function importsOf(text: string): Array<{ spec: string; typeOnly: boolean; dynamic?: true }> {
  const out: Array<{ spec: string; typeOnly: boolean; dynamic?: true }> = [];
  for (const m of text.matchAll(/^\s*(?:import|export)\s+(type\s+)?(?:[^'";]*?\s)?from\s+['"]([^'"]+)['"]/gm)) out.push({ spec: m[2]!, typeOnly: Boolean(m[1]) });
  for (const m of text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm)) out.push({ spec: m[1]!, typeOnly: false });
  for (const m of text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) out.push({ spec: m[1]!, typeOnly: false, dynamic: true });
  return out;
}

test('the import reader sees every form of import and re-export', () => {
  const sample = [
    "import { a } from '../store/a.ts';",
    "import type { B } from '../store/b.ts';",
    "import {\n  c,\n  d,\n} from '../store/c.ts';",
    "import '../store/side-effect.ts';",
    "export { e } from '../store/e.ts';",
    "export type { F } from '../store/f.ts';",
    "export * from '../store/g.ts';",
    "const h = await import('../store/h.ts');",
    "const notAnImport = 'import from nowhere';",
  ].join('\n');
  assert.deepEqual(
    importsOf(sample).map((i) => `${i.spec}${i.typeOnly ? ' (type)' : ''}`).sort(),
    ['../store/a.ts', '../store/b.ts (type)', '../store/c.ts', '../store/e.ts', '../store/f.ts (type)', '../store/g.ts', '../store/h.ts', '../store/side-effect.ts'],
  );
});

test('imports follow the arrows of ARCHITECTURE.md', () => {
  const problems: string[] = [];
  for (const file of [...files(SRC), ...files(VIEWS)]) {
    const layer = layerOf(file);
    const text = readFileSync(file, 'utf8');
    for (const { spec, typeOnly, dynamic } of importsOf(text)) {
      // A protocol definition reaches its own probe only lazily (docs/architecture.md "Adding a protocol").
      if (dynamic && layer === 'protocols' && spec === './probe.ts') continue;
      if (spec.startsWith('.')) {
        const target = layerOf(resolve(dirname(file), spec));
        if (layer === 'root' || (layer === 'cli' && target === 'root')) continue;
        if (target === 'root') {
          problems.push(`${relative(SRC, file)} imports ${spec} (only main wires the root modules)`);
          continue;
        }
        const ok = ALLOWED[layer]?.includes(target) || (typeOnly && TYPE_ONLY[layer]?.includes(target));
        if (!ok) problems.push(`${relative(SRC, file)} (${layer}) imports ${spec} (${target})`);
      } else {
        const pkg = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
        const owners = PACKAGE_OWNERS[pkg];
        if (owners && !owners.includes(layer)) problems.push(`${relative(SRC, file)} (${layer}) uses ${pkg}, which belongs to ${owners.join('/')}`);
      }
    }
  }
  assert.deepEqual(problems, []);
});

/**
 * Issue 38 (idle footprint): libraries only some configurations use load at their first use — one
 * line each, file → the specifiers it may import(); test/api/lazy-modules.test.ts checks the effect.
 */
const LAZY_LIBRARIES: Record<string, readonly string[]> = {
  'alerting/channels/email/index.ts': ['nodemailer'],
  'http/sso/router.ts': ['./oidc.ts', './saml.ts'],
  'http/mcp/server.ts': ['./sdk.ts'],
  'http/badges.ts': ['badge-maker'],
  'http/pages/feeds.ts': ['badge-maker'],
  'http/console/routes-settings.ts': ['qrcode'],
  'tls/index.ts': ['./acme.ts'], // acme-client (axios, node-forge, @peculiar/x509) only with tls.acme (issue 37)
  'domain/subscriber-caps.ts': ['libphonenumber-js'], // only when a page offers SMS subscriptions
  'core/accounts.ts': ['otpauth'], // only when someone uses TOTP
  'http/ical.ts': ['ical-generator'], // on the first on-call iCal feed asked for
  'http/console/response-period.ts': ['d3-scale', 'd3-shape'], // on the first monitor page's chart
  'protocols/http/index.ts': ['jsonata'], // on the first json_query assertion checked or run
  // The REST API, the console, its SSO sign-in and the status pages are built at their first request.
  'http/app.ts': ['./api-app.ts', './console/router.ts', './console/routes-sso.ts', './pages/router.ts'],
  'http/pages/warm-up.ts': ['./warm-up-render.ts'], // the status page warm-up, once a page exists
};

test('dynamic import() only where a protocol definition loads its own probe, main.ts loads a CLI command, pharos.ts the PostgreSQL cluster, or a lazily loaded library (LAZY_LIBRARIES)', () => {
  const problems: string[] = [];
  for (const file of files(SRC)) {
    const rel = relative(SRC, file);
    for (const m of readFileSync(file, 'utf8').matchAll(/\bimport\(\s*['"]([^'"]+)['"]/g)) {
      const probe = /^protocols\/[a-z0-9]+\/index\.ts$/.test(rel) && m[1] === './probe.ts';
      const command = rel === 'main.ts' && /^\.\/cli\/[a-z-]+\.ts$/.test(m[1]!);
      // Leadership on PostgreSQL (issue 22) needs `pg` on the main thread: loaded only with that driver.
      const cluster = rel === 'pharos.ts' && m[1] === './cluster/postgres.ts';
      const lazy = LAZY_LIBRARIES[rel]?.includes(m[1]!) ?? false;
      if (!probe && !command && !cluster && !lazy) problems.push(`${rel}: import('${m[1]}')`);
    }
  }
  assert.deepEqual(problems, []);
});

test('no file in src/ is over 400 lines', () => {
  const long = files(SRC).map((f) => [relative(SRC, f), readFileSync(f, 'utf8').split('\n').length] as const).filter(([, n]) => n > 400);
  assert.deepEqual(long, []);
});

// Issue 22 "domain types in and out": above the store, the only thing taken from src/store is the type
// `Store` (from store/index.ts) and, since issue 31, the asynchronous interface's `procedure` and its
// types (store/async.ts); the shapes its functions take and give are domain types. Wiring (the root
// modules and CLI commands) may open a store (store/open.ts) and use store-side tools (backup, copy, Kuma reader).
const WIRING = new Set(['root', 'cli', 'store']);

test('above the store, only the type Store is imported from src/store (domain types in and out)', () => {
  const problems: string[] = [];
  for (const file of [...files(SRC), ...files(VIEWS)]) {
    const layer = layerOf(file);
    if (WIRING.has(layer)) continue;
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/^\s*(import|export)\s+(type\s+)?([^;]*?)\s*from\s+['"]([^'"]+)['"]/gm)) {
      const spec = m[4]!;
      if (!spec.startsWith('.') || layerOf(resolve(dirname(file), spec)) !== 'store') continue;
      const clause = `${m[2] ?? ''}${m[3]}`.replace(/\s+/g, ' ').trim();
      const target = relative(ROOT, resolve(dirname(file), spec));
      const asyncNames = /^(type )?\{ ?((type )?(procedure|Procedure|AsyncStore|AsyncCallOptions),? ?)+\}$/;
      const ok =
        m[1] === 'import' &&
        ((target === 'src/store/index.ts' && (clause === 'type { Store }' || clause === '{ type Store }')) || (target === 'src/store/async.ts' && asyncNames.test(clause)));
      if (!ok) problems.push(`${relative(ROOT, file)}: ${m[0].trim()}`);
    }
  }
  assert.deepEqual(problems, []);
});

test('no raw database handle outside src/store: rawDb, sqliteOf and the Db type stay inside it', () => {
  const problems: string[] = [];
  for (const file of [...files(SRC), ...files(VIEWS)]) {
    if (layerOf(file) === 'store') continue;
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/\b(rawDb|sqliteOf|openDatabase)\b|\btype\s+Db\b|\{[^}]*\bDb\b[^}]*\}\s*from\s+['"][^'"]*store\//g)) problems.push(`${relative(ROOT, file)}: ${m[0]}`);
    if (/\bstore\.db\b/.test(text)) problems.push(`${relative(ROOT, file)}: store.db`);
  }
  assert.deepEqual(problems, []);
});
