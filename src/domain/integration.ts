import { invalid } from '../lib/errors.ts';
import { secretFieldsOf, type ChannelType } from './channels/index.ts';

/**
 * Integrations (issue 32): a channel of the registry (domain/channels) kept as a stored object,
 * created in the console or the API or provisioned from config.yaml. Its secret settings (each kind's
 * `secretFields`) are stored sealed (lib/secret-box.ts) apart from the rest, shown as `***`, and a
 * `***` sent back keeps the stored value. Everything here is pure: sealing and opening are passed in.
 */

/** What a secret looks like wherever it is shown: API answers, the console, the audit log. */
export const MASK = '***';

/** A kind's settings: its channel schema's fields without `name` and `type` (JSON values). */
export type IntegrationSettings = Record<string, unknown>;

/** One sealed secret: where it goes in the settings, and its JSON value sealed (`v1:…`). */
export interface SealedSecret {
  path: string[];
  sealed: string;
}

/**
 * An integration as the store hands it out: `settings` has `***` at every secret that is set, so it
 * can be shown as it is. The sealed values come only from `store.integrations.sealedSecrets(uuid)`.
 */
export interface Integration {
  /** `int_…` */
  uuid: string;
  name: string;
  kind: ChannelType;
  enabled: boolean;
  settings: IntegrationSettings;
  /** Declared in config.yaml: read-only for the API and the console. */
  provisioned: boolean;
  /** Epoch ms of the last "send test", or null. */
  lastTestAt: number | null;
  /** The provider's answer to it (or the error), as shown to people. */
  lastTestResult: string | null;
  createdAt: number;
  updatedAt: number;
}

/**
 * What the store writes: `settings` and `secrets` as {@link sealSettings} returns them (the store
 * refuses a secret path whose value is not `***`, and a sealed value that is not a sealed text).
 */
export interface IntegrationWrite {
  name: string;
  kind: ChannelType;
  enabled: boolean;
  provisioned: boolean;
  settings: IntegrationSettings;
  secrets: SealedSecret[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function getAt(obj: unknown, path: readonly string[]): unknown {
  let v = obj;
  for (const seg of path) {
    if (!isObject(v)) return undefined;
    v = v[seg];
  }
  return v;
}

function setAt(obj: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let o = obj;
  for (const seg of path.slice(0, -1)) {
    if (!isObject(o[seg])) o[seg] = {};
    o = o[seg] as Record<string, unknown>;
  }
  o[path.at(-1)!] = value;
}

/** The concrete paths of `settings` matched by one secret field spec (`a.b`, `headers.*`). */
function expand(settings: unknown, segs: readonly string[], at: string[] = []): string[][] {
  if (segs.length === 0) return settings === undefined || settings === null ? [] : [at];
  if (!isObject(settings)) return [];
  const [head, ...rest] = segs as [string, ...string[]];
  const keys = head === '*' ? Object.keys(settings) : [head];
  return keys.flatMap((k) => expand(settings[k], rest, [...at, k]));
}

/**
 * The paths of `settings` that hold a secret of `kind` (absent and null values left out), in the
 * order of the kind's `secretFields`, a record's keys in their order.
 */
export function secretPaths(kind: ChannelType, settings: IntegrationSettings): string[][] {
  return secretFieldsOf(kind).flatMap((spec) => expand(settings, spec.split('.')));
}

/** True when `path` (relative to the settings) is a secret of `kind`. */
export function isSecretPath(kind: ChannelType, path: readonly string[]): boolean {
  return secretFieldsOf(kind).some((spec) => {
    const segs = spec.split('.');
    return segs.length === path.length && segs.every((s, i) => s === '*' || s === path[i]);
  });
}

/** A copy of `settings` with `***` in place of every secret that is set. */
export function maskSettings(kind: ChannelType, settings: IntegrationSettings): IntegrationSettings {
  const out = structuredClone(settings);
  for (const p of secretPaths(kind, settings)) setAt(out, p, MASK);
  return out;
}

/**
 * The merge rule of issue 32: a copy of `incoming` in which every secret sent as `***` has the value
 * of `stored` (plaintext, opened by the caller) at the same path. Other fields are taken as sent
 * (a `***` in a field that is no secret is an ordinary value).
 * @throws AppError 400 `validation.invalid` `<path>: is "***" but no value is stored …`
 */
export function keepMaskedSecrets(kind: ChannelType, incoming: IntegrationSettings, stored: IntegrationSettings): IntegrationSettings {
  const out = structuredClone(incoming);
  for (const p of secretPaths(kind, incoming)) {
    if (getAt(incoming, p) !== MASK) continue;
    const kept = getAt(stored, p);
    if (kept === undefined || kept === null) throw invalid(p.join('.'), `is "${MASK}" but no value is stored for it: send the value itself`);
    setAt(out, p, structuredClone(kept));
  }
  return out;
}

/**
 * Splits plaintext settings for the store: `settings` with `***` at each secret, and each secret's
 * JSON value passed through `seal` (lib/secret-box.ts `SecretBox.seal`).
 * @throws Error when a secret is `***` (apply {@link keepMaskedSecrets} first: a mask is never sealed as a value)
 */
export function sealSettings(kind: ChannelType, plain: IntegrationSettings, seal: (plaintext: string) => string): { settings: IntegrationSettings; secrets: SealedSecret[] } {
  const settings = structuredClone(plain);
  const secrets: SealedSecret[] = [];
  for (const path of secretPaths(kind, plain)) {
    const v = getAt(plain, path);
    if (v === MASK) throw new Error(`sealSettings: ${path.join('.')} is "${MASK}": apply keepMaskedSecrets first`);
    secrets.push({ path, sealed: seal(JSON.stringify(v)) });
    setAt(settings, path, MASK);
  }
  return { settings, secrets };
}

/**
 * The plaintext settings: `settings` (as stored, `***` at the secrets) with each secret opened by
 * `open` (lib/secret-box.ts `SecretBox.open`) at its path. For sending and for the merge rule only.
 * @throws what `open` throws (AppError `secrets.wrong_key`, `secrets.corrupt`)
 */
export function openSettings(settings: IntegrationSettings, secrets: readonly SealedSecret[], open: (sealed: string) => string): IntegrationSettings {
  const out = structuredClone(settings);
  for (const s of secrets) setAt(out, s.path, JSON.parse(open(s.sealed)) as unknown);
  return out;
}
