import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { AppError } from '../lib/errors.ts';
import { ConfigSchema, type Config } from './schema.ts';
import { tlsFromEnv } from './tls.ts';

/** Environment variables that override config keys (CONTRACT.md "Process, configuration, CLI"). */
const ENV_KEYS = {
  PHAROS_LISTEN: 'listen',
  PHAROS_DATA_DIR: 'data_dir',
  PHAROS_PUBLIC_URL: 'public_url',
  PHAROS_ADMIN_TOKEN: 'admin_token',
  PHAROS_SECRET_KEY: 'secret_key',
} as const;

/**
 * Validates a raw config object (already merged with env) and freezes it.
 * @throws AppError `config.invalid` whose message names the key and the rule, e.g. `probe.region: …`
 */
export function parseConfig(raw: unknown): Readonly<Config> {
  const r = ConfigSchema.safeParse(withPublicUrl(raw ?? {}));
  if (!r.success) {
    const first = r.error.issues[0]!;
    const key = first.code === 'unrecognized_keys' ? [...first.path, first.keys[0]].join('.') : first.path.join('.');
    const msg = first.code === 'unrecognized_keys' ? 'unknown config key' : first.message;
    throw new AppError(400, 'config.invalid', `config: ${key || '(root)'}: ${msg}`);
  }
  return deepFreeze(r.data);
}

/**
 * `public_url` follows `listen` when it is not set (issue #20): `http://<host>:<port>` with the
 * listen host, or `localhost` for a wildcard host (`0.0.0.0`, `::`, empty). A listen port of 0 (a
 * free port picked at bind time, as in tests) cannot be named before binding: the schema's default,
 * `http://localhost:8080`, stays. With `tls` set (HTTPS on `listen`, issue 37) the scheme is `https`.
 */
function withPublicUrl(raw: unknown): unknown {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return raw;
  const r = raw as Record<string, unknown>;
  if (r.public_url !== undefined) return raw;
  const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]*):(\d{1,5})$/.exec(typeof r.listen === 'string' ? r.listen : '');
  if (!m || Number(m[2]) === 0) return raw;
  const host = m[1] === '' || m[1] === '0.0.0.0' || m[1] === '[::]' ? 'localhost' : m[1];
  const scheme = r.tls && typeof r.tls === 'object' ? 'https' : 'http';
  return { ...r, public_url: `${scheme}://${host}:${Number(m[2])}` };
}

/** How loadConfig treats a `${NAME}` whose variable is not set. */
export interface LoadOptions {
  /**
   * `fail` (default, `pharos serve`): refuse to start, naming the key. `placeholder` (maintenance
   * commands: backup, token, user, import, which never send alerts): put the inert
   * `https://unset.invalid/NAME` in its place so a missing secret does not block them.
   */
  unsetVariables?: 'fail' | 'placeholder';
}

/**
 * Reads `config.yaml` (path from `PHAROS_CONFIG`, else `./config.yaml` when it exists), applies the
 * environment overrides and validates. Nothing else in Pharos reads env or config files.
 * @param env environment (process.env in production)
 * @param explicitPath a path given on the command line, wins over PHAROS_CONFIG
 * @param options what an unset `${NAME}` does (LoadOptions)
 * @throws AppError `config.unreadable` / `config.invalid`
 */
export function loadConfig(env: Record<string, string | undefined>, explicitPath?: string, options: LoadOptions = {}): Readonly<Config> {
  const path = explicitPath ?? env.PHAROS_CONFIG;
  let raw: Record<string, unknown> = {};
  const candidate = path ?? 'config.yaml';
  let text: string | null = null;
  try {
    text = readFileSync(candidate, 'utf8');
  } catch (e) {
    if (path || (e as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new AppError(400, 'config.unreadable', `config: cannot read ${candidate}: ${(e as Error).message}`);
    }
  }
  if (text !== null) {
    try {
      raw = (parseYaml(text) as Record<string, unknown> | null) ?? {};
    } catch (e) {
      throw new AppError(400, 'config.invalid', `config: ${candidate} is not valid YAML: ${(e as Error).message.split('\n')[0]}`);
    }
    if (typeof raw !== 'object' || Array.isArray(raw)) throw new AppError(400, 'config.invalid', `config: ${candidate} must hold a mapping of keys`);
  }
  raw = substituteEnv(raw, env, '', options.unsetVariables === 'placeholder' ? (name) => `https://unset.invalid/${name}` : undefined) as Record<string, unknown>;
  for (const [envName, key] of Object.entries(ENV_KEYS)) {
    const v = env[envName];
    if (v !== undefined && v !== '') raw[key] = v;
  }
  // Scheduled backups (issue 37): PHAROS_BACKUP_EVERY / _KEEP / _DIR set backup.every / keep / dir.
  for (const k of ['every', 'keep', 'dir'] as const) {
    const v = env[`PHAROS_BACKUP_${k.toUpperCase()}`];
    if (v === undefined || v === '') continue;
    const backup = raw.backup && typeof raw.backup === 'object' && !Array.isArray(raw.backup) ? (raw.backup as Record<string, unknown>) : {};
    raw.backup = { ...backup, [k]: v };
  }
  // HTTPS (issue 37): PHAROS_TLS_CERT / _KEY / _HTTP_LISTEN, PHAROS_ACME_EMAIL / _DOMAINS / _DIRECTORY / _CHALLENGE.
  raw = tlsFromEnv(raw, env);
  // PHAROS_DATABASE_URL selects PostgreSQL (issue 22) whatever config.yaml says.
  const dbUrl = env.PHAROS_DATABASE_URL;
  if (dbUrl !== undefined && dbUrl !== '') {
    const storage = raw.storage && typeof raw.storage === 'object' && !Array.isArray(raw.storage) ? (raw.storage as Record<string, unknown>) : {};
    raw.storage = { ...storage, driver: 'postgres', postgres_url: dbUrl };
  }
  return parseConfig(raw);
}

/**
 * Replaces `${NAME}` in every string value of the config with the environment variable NAME, so
 * secrets (webhook URLs, SMTP passwords, HMAC keys) stay out of config.yaml. `$${` escapes a literal
 * `${`. The message of a missing variable names the key, never a value.
 * @param unset the value for a variable that is not set; without it, an unset variable throws
 * @throws AppError `config.invalid` when a referenced variable is not set (and no `unset` is given),
 *   or the value is circular (self-referencing YAML alias)
 */
export function substituteEnv(value: unknown, env: Record<string, string | undefined>, key: string, unset?: (name: string) => string, ancestors: ReadonlySet<object> = new Set()): unknown {
  if (value && typeof value === 'object') {
    // A YAML alias inside its own anchor (`a: &x {b: *x}`) parses to a cycle; no config key can hold one.
    if (ancestors.has(value)) throw new AppError(400, 'config.invalid', `config: ${key || '(root)'}: a YAML alias refers to a node that contains it (circular)`);
    ancestors = new Set(ancestors).add(value);
  }
  if (typeof value === 'string') {
    return value.replace(/\$?\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (m, name: string) => {
      if (m.startsWith('$$')) return m.slice(1);
      const v = env[name] ?? unset?.(name);
      if (v === undefined) throw new AppError(400, 'config.invalid', `config: ${key}: environment variable ${name} is not set`);
      return v;
    });
  }
  if (Array.isArray(value)) return value.map((v, i) => substituteEnv(v, env, `${key}[${i}]`, unset, ancestors));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substituteEnv(v, env, key ? `${key}.${k}` : k, unset, ancestors)]));
  }
  return value;
}

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object') {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}
