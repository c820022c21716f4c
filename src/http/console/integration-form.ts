import type { z } from 'zod';
import { CHANNEL_KINDS, CHANNEL_TYPES, secretFieldsOf, type ChannelType } from '../../domain/channels/index.ts';
import { MASK, type IntegrationSettings } from '../../domain/integration.ts';
import { AppError } from '../../lib/errors.ts';
import type { FormErrors, FormValues } from '../../../views/console/model.ts';
import type { SettingFieldForm } from '../../../views/console/integrations.tsx';
import { numberish } from './forms.ts';

/**
 * The integration form of each channel kind, generated from its zod schema in the registry
 * (src/domain/channels/<kind>.ts through src/domain/channels/index.ts), as the monitor form is from
 * the protocol registry: field, type (enum → select, boolean → checkbox, number, list → one per
 * line, record → "Name: value" per line, nested object → its fields, anything else text), default,
 * required, and secret (the kind's `secretFields`: a password input showing `***` when set, and a
 * `***` left as it is keeps the stored value: domain/integration.ts `keepMaskedSecrets`). The label
 * is the field name made readable; a schema's `.describe()` text, when it has one, shows as help.
 * Inputs are named `settings.<path>`, the path the API's errors name, so each message shows beside
 * its field.
 */

type Def = { type: string; [k: string]: unknown };
type Schema = z.ZodType & { description?: string };
const defOf = (s: unknown): Def => (s as { _zod: { def: Def } })._zod.def;

/** The schema under optional/nullable/default/pipe wrappers: its def, optional, default and description. */
function unwrap(schema: Schema): { def: Def; optional: boolean; defaultValue: unknown; description: string | undefined } {
  let s: Schema = schema;
  let optional = false;
  let defaultValue: unknown;
  let description = s.description;
  for (;;) {
    const def = defOf(s);
    if (def.type === 'optional' || def.type === 'nullable') optional = true;
    if (def.type === 'default' && defaultValue === undefined) defaultValue = structuredClone(def.defaultValue);
    if (def.type === 'optional' || def.type === 'nullable' || def.type === 'default') s = def.innerType as Schema;
    else if (def.type === 'pipe') s = def.in as Schema;
    else return { def, optional, defaultValue, description };
    description ??= s.description;
  }
}

const WORDS: Record<string, string> = { url: 'URL', api: 'API', smtp: 'SMTP', tls: 'TLS', id: 'ID', iden: 'iden', sid: 'SID', ssl: 'SSL' };
/** `api_url` → "API URL", `timeout_seconds` → "Timeout (seconds)". */
export function readable(name: string): string {
  const words = name.replace(/_seconds$/, ' (seconds)').split('_').map((w) => WORDS[w] ?? w);
  const s = words.join(' ');
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** True when `path` is one of `kind`'s secret fields (`a.b`, `headers.*`: the whole record). */
function secretKind(kind: ChannelType, path: string): 'whole' | 'values' | null {
  for (const spec of secretFieldsOf(kind)) {
    if (spec === path) return 'whole';
    if (spec === `${path}.*`) return 'values';
  }
  return null;
}

function fieldsOf(kind: ChannelType, shape: Record<string, Schema>, prefix: string[], parentOptional: boolean): SettingFieldForm[] {
  const out: SettingFieldForm[] = [];
  for (const [key, schema] of Object.entries(shape)) {
    if (prefix.length === 0 && (key === 'name' || key === 'type')) continue;
    const path = [...prefix, key];
    const dotted = path.join('.');
    const { def, optional, defaultValue, description } = unwrap(schema);
    const required = !optional && defaultValue === undefined && !parentOptional;
    const secret = secretKind(kind, dotted);
    const base = { path: dotted, label: readable(key), required, secret: secret !== null, ...(description ? { help: description } : {}), defaultValue };
    if (def.type === 'object') {
      out.push({ ...base, kind: 'group', fields: fieldsOf(kind, def.shape as Record<string, Schema>, path, parentOptional || optional) });
    } else if (def.type === 'enum') {
      out.push({ ...base, kind: 'select', options: Object.values(def.entries as Record<string, string>) });
    } else if (def.type === 'boolean') {
      out.push({ ...base, kind: 'checkbox' });
    } else if (def.type === 'number') {
      out.push({ ...base, kind: 'number' });
    } else if (def.type === 'array') {
      out.push({ ...base, kind: 'lines', hint: secret ? `one per line; leave ${MASK} to keep the stored list` : 'one per line' });
    } else if (def.type === 'record') {
      out.push({ ...base, kind: 'pairs', hint: `one "Name: value" per line${secret ? `; a value left as ${MASK} keeps the stored one` : ''}` });
    } else {
      out.push({ ...base, kind: 'text' });
    }
  }
  return out;
}

const cache = new Map<ChannelType, SettingFieldForm[]>();
/** The form fields of `kind`, in its schema's order (computed once per kind). */
export function kindFields(kind: ChannelType): SettingFieldForm[] {
  let f = cache.get(kind);
  if (!f) {
    f = fieldsOf(kind, defOf(CHANNEL_KINDS[kind].schema).shape as Record<string, Schema>, [], false);
    cache.set(kind, f);
  }
  return f;
}

/** The kind named by a form or query, or undefined. */
export function kindOf(s: string | undefined): ChannelType | undefined {
  return (CHANNEL_TYPES as string[]).includes(s ?? '') ? (s as ChannelType) : undefined;
}

const leaves = (fields: SettingFieldForm[]): SettingFieldForm[] => fields.flatMap((f) => (f.kind === 'group' ? leaves(f.fields ?? []) : [f]));
const inputName = (path: string) => `settings.${path}`;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function getAt(obj: unknown, path: string): unknown {
  let v = obj;
  for (const seg of path.split('.')) {
    if (!isObject(v)) return undefined;
    v = v[seg];
  }
  return v;
}

function setAt(obj: Record<string, unknown>, path: string, value: unknown): void {
  const segs = path.split('.');
  let o = obj;
  for (const seg of segs.slice(0, -1)) {
    if (!isObject(o[seg])) o[seg] = {};
    o = o[seg] as Record<string, unknown>;
  }
  o[segs.at(-1)!] = value;
}

/** A setting as form text. */
function fieldText(f: SettingFieldForm, v: unknown): string | undefined {
  if (f.kind === 'checkbox') return v === true ? 'on' : undefined;
  if (v === undefined || v === null) return '';
  if (f.kind === 'lines') return Array.isArray(v) ? v.map(String).join('\n') : String(v);
  if (f.kind === 'pairs') return isObject(v) ? Object.entries(v).map(([k, x]) => `${k}: ${String(x)}`).join('\n') : '';
  return String(v);
}

/** Form values of a new integration of `kind`: the schema's defaults. */
export function newIntegrationValues(kind: ChannelType): FormValues {
  const values: FormValues = { kind, enabled: 'on' };
  for (const f of leaves(kindFields(kind))) values[inputName(f.path)] = fieldText(f, f.defaultValue);
  return values;
}

/** Form values of a stored integration: its settings as stored (each secret that is set reads `***`). */
export function integrationValues(i: { name: string; kind: ChannelType; enabled: boolean; settings: IntegrationSettings }): FormValues {
  const values: FormValues = { kind: i.kind, name: i.name, ...(i.enabled ? { enabled: 'on' } : {}) };
  for (const f of leaves(kindFields(i.kind))) values[inputName(f.path)] = fieldText(f, getAt(i.settings, f.path));
  return values;
}

/** One field's form text as its settings value; undefined: left empty (absent). */
function fieldJson(f: SettingFieldForm, raw: string | string[] | undefined): unknown {
  if (f.kind === 'checkbox') return raw !== undefined;
  const s = (Array.isArray(raw) ? (raw[0] ?? '') : (raw ?? '')).trim();
  if (s === '') return f.kind === 'lines' && f.required ? [] : undefined;
  if (f.secret && s === MASK) return MASK;
  if (f.kind === 'number') return numberish(s);
  if (f.kind === 'lines') return s.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '');
  if (f.kind === 'pairs') {
    const out: Record<string, string> = {};
    for (const line of s.split(/\r?\n/)) {
      if (line.trim() === '') continue;
      const at = line.indexOf(':');
      const k = (at < 0 ? line : line.slice(0, at)).trim();
      if (k) out[k] = at < 0 ? '' : line.slice(at + 1).trim();
    }
    return out;
  }
  return s;
}

/**
 * The posted form as the kind's settings (plaintext, `***` where a secret is kept): empty optional
 * fields left out, an optional group whose fields are all empty left out.
 */
export function settingsJson(kind: ChannelType, f: FormValues): IntegrationSettings {
  const out: IntegrationSettings = {};
  const walk = (fields: SettingFieldForm[], into: Record<string, unknown>) => {
    for (const field of fields) {
      const key = field.path.split('.').at(-1)!;
      if (field.kind === 'group') {
        const inner: Record<string, unknown> = {};
        walk(field.fields ?? [], inner);
        // An optional group (signal's basic_auth) is sent only when something in it is filled in.
        const filled = Object.entries(inner).some(([, v]) => v !== undefined && v !== false);
        if (field.required || filled) into[key] = inner;
        continue;
      }
      const v = fieldJson(field, f[inputName(field.path)]);
      if (v !== undefined) into[key] = v;
    }
  };
  walk(kindFields(kind), out);
  return out;
}

/**
 * The settings of an edit form as a partial update for core.integrations.update, which merges key by
 * key: every key of the stored settings that the form leaves out becomes null, which removes it
 * (a cleared optional field, a removed header).
 */
export function settingsPatch(posted: IntegrationSettings, stored: IntegrationSettings): IntegrationSettings {
  const out: IntegrationSettings = structuredClone(posted);
  for (const [k, v] of Object.entries(stored)) {
    if (!(k in out)) out[k] = null;
    else if (isObject(v) && isObject(out[k])) out[k] = settingsPatch(out[k], v);
  }
  return out;
}

/**
 * A refusal as the integration form shows it: the whole message, and per input the rule, keyed by
 * the input's name (`name`, `settings.smtp.host`; a record's entry `settings.headers.X` on its
 * field `settings.headers`). Not a 4xx → rethrown.
 */
export function integrationFormErrors(e: unknown, kind: ChannelType | undefined): FormErrors {
  if (!(e instanceof AppError) || e.status >= 500) throw e;
  const known = new Set(kind ? leaves(kindFields(kind)).map((f) => inputName(f.path)) : []);
  const fields: Record<string, string> = {};
  const put = (path: string, message: string) => {
    let p = path;
    while (p.includes('.') && !known.has(p) && p.startsWith('settings.')) p = p.slice(0, p.lastIndexOf('.'));
    fields[p] ??= message;
  };
  for (const d of e.details ?? []) put(d.path, d.message);
  const m = /^([a-z_]+(?:\.[\w.*-]+)?): (.*)$/s.exec(e.message);
  if (m && (e.details ?? []).length === 0) put(m[1]!, m[2]!);
  return { message: e.message, fields };
}
