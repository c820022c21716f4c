import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { AppError } from '../lib/errors.ts';
import { ConfigSchema, type Config } from './schema.ts';

/** Environment variables that override config keys (CONTRACT.md "Process, configuration, CLI"). */
const ENV_KEYS = {
  PHAROS_LISTEN: 'listen',
  PHAROS_DATA_DIR: 'data_dir',
  PHAROS_PUBLIC_URL: 'public_url',
  PHAROS_ADMIN_TOKEN: 'admin_token',
} as const;

/**
 * Validates a raw config object (already merged with env) and freezes it.
 * @throws AppError `config.invalid` whose message names the key and the rule, e.g. `probe.region: …`
 */
export function parseConfig(raw: unknown): Readonly<Config> {
  const r = ConfigSchema.safeParse(raw ?? {});
  if (!r.success) {
    const first = r.error.issues[0]!;
    const key = first.code === 'unrecognized_keys' ? [...first.path, first.keys[0]].join('.') : first.path.join('.');
    const msg = first.code === 'unrecognized_keys' ? 'unknown config key' : first.message;
    throw new AppError(400, 'config.invalid', `config: ${key || '(root)'}: ${msg}`);
  }
  return deepFreeze(r.data);
}

/**
 * Reads `config.yaml` (path from `PHAROS_CONFIG`, else `./config.yaml` when it exists), applies the
 * environment overrides and validates. Nothing else in Pharos reads env or config files.
 * @param env environment (process.env in production)
 * @param explicitPath a path given on the command line, wins over PHAROS_CONFIG
 * @throws AppError `config.unreadable` / `config.invalid`
 */
export function loadConfig(env: Record<string, string | undefined>, explicitPath?: string): Readonly<Config> {
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
  raw = substituteEnv(raw, env, '') as Record<string, unknown>;
  for (const [envName, key] of Object.entries(ENV_KEYS)) {
    const v = env[envName];
    if (v !== undefined && v !== '') raw[key] = v;
  }
  return parseConfig(raw);
}

/**
 * Replaces `${NAME}` in every string value of the config with the environment variable NAME, so
 * secrets (webhook URLs, SMTP passwords, HMAC keys) stay out of config.yaml. `$${` escapes a literal
 * `${`. The message of a missing variable names the key, never a value.
 * @throws AppError `config.invalid` when a referenced variable is not set or the value is circular (self-referencing YAML alias)
 */
export function substituteEnv(value: unknown, env: Record<string, string | undefined>, key: string, ancestors: ReadonlySet<object> = new Set()): unknown {
  if (value && typeof value === 'object') {
    // A YAML alias inside its own anchor (`a: &x {b: *x}`) parses to a cycle; no config key can hold one.
    if (ancestors.has(value)) throw new AppError(400, 'config.invalid', `config: ${key || '(root)'}: a YAML alias refers to a node that contains it (circular)`);
    ancestors = new Set(ancestors).add(value);
  }
  if (typeof value === 'string') {
    return value.replace(/\$?\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (m, name: string) => {
      if (m.startsWith('$$')) return m.slice(1);
      const v = env[name];
      if (v === undefined) throw new AppError(400, 'config.invalid', `config: ${key}: environment variable ${name} is not set`);
      return v;
    });
  }
  if (Array.isArray(value)) return value.map((v, i) => substituteEnv(v, env, `${key}[${i}]`, ancestors));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substituteEnv(v, env, key ? `${key}.${k}` : k, ancestors)]));
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
