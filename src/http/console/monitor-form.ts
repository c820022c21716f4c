import type { z } from 'zod';
import { PROTOCOLS, protocolDefinition, type Protocol } from '../../protocols/index.ts';
import { maskMonitor } from '../../protocols/secrets.ts';
import type { Monitor } from '../../domain/monitor.ts';
import { AppError } from '../../lib/errors.ts';
import type { FormErrors, FormValues, ProtocolFieldForm, ProtocolForm, SettingLine } from '../../../views/console/model.ts';
import type { RegionChoice } from '../../../views/console/monitor-form.tsx';
import { LOCAL_PROBE, type ProbeListing } from '../../domain/probe.ts';
import { numberish, text } from './forms.ts';

/**
 * The monitor form, derived from the protocol registry (src/protocols/registry.ts): each protocol's
 * fieldset lists its definition's `fields` (or its `formFields`), each edited as its zod schema
 * says (enum → select, boolean → checkbox, number, text, list). Inputs are named
 * `<protocol>.<field>` so every fieldset can be on the page at once (JavaScript off); only the
 * chosen protocol's are read, and a flat `<field>` name is read when the namespaced one is absent.
 */

/** Lists of objects edited one item per line: the line syntax, parse and format, by field name. */
interface LineCodec {
  hint: string;
  parse(line: string): unknown;
  format(item: unknown): string;
}

/** A JSON literal (number, true, false, null, "string") as its value; anything else as the text itself. */
const literal = (s: string): unknown => {
  if (/^(-?\d+(\.\d+)?|true|false|null|".*")$/.test(s)) {
    try {
      return JSON.parse(s);
    } catch {
      return s;
    }
  }
  return s;
};
const showLiteral = (v: unknown): string => (typeof v === 'string' && literal(v) === v ? v : JSON.stringify(v));
const PATHED = new Set(['json', 'header', 'json_query']);

const LINE_CODECS: Record<string, LineCodec> = {
  request_headers: {
    hint: 'one "Name: value" per line',
    parse: (l) => {
      const i = l.indexOf(':');
      return i < 0 ? { name: l.trim(), value: '' } : { name: l.slice(0, i).trim(), value: l.slice(i + 1).trim() };
    },
    format: (h) => `${(h as { name: string }).name}: ${(h as { value: string }).value}`,
  },
  assertions: {
    hint: 'one per line: "json $.status equals UP", "header Content-Type contains json", "body not_contains error", "response_time lt 500", "json_query $count(services[up]) gte 3" (JSONata)',
    parse: (l) => {
      // A JSONata expression may hold spaces: it runs up to the first op word (json-query.ts).
      const q = /^\s*json_query\s+(.+?)\s+(equals|not_equals|contains|lte|lt|gte|gt)(?:\s+(.*?))?\s*$/.exec(l);
      // Its value is compared as text (a number only for the ordering ops): `1.20` stays "1.20".
      if (q) return { source: 'json_query', path: q[1], op: q[2], ...(q[3] ? { value: /^(lte?|gte?)$/.test(q[2]!) ? literal(q[3]) : /^".*"$/.test(q[3]) ? literal(q[3]) : q[3] } : {}) };
      const t = l.trim().split(/\s+/);
      const source = t[0]!;
      const pathed = PATHED.has(source);
      const op = t[pathed ? 2 : 1] ?? '';
      const rest = t.slice(pathed ? 3 : 2).join(' ');
      return { source, ...(pathed && t[1] !== undefined ? { path: t[1] } : {}), op, ...(rest === '' ? {} : { value: literal(rest) }) };
    },
    format: (a) => {
      const x = a as { source: string; path?: string; op: string; value?: unknown };
      return [x.source, x.path, x.op, x.value === undefined ? undefined : showLiteral(x.value)].filter((p) => p !== undefined).join(' ');
    },
  },
};

type Def = { type: string; [k: string]: unknown };
const defOf = (s: unknown): Def => (s as { _zod: { def: Def } })._zod.def;

/** The schema under optional/nullable/default/transform wrappers, and whether null is allowed. */
function unwrap(schema: z.ZodType): { def: Def; optional: boolean } {
  let def = defOf(schema);
  let optional = false;
  for (;;) {
    if (def.type === 'nullable' || def.type === 'optional') optional = true;
    if (def.type === 'nullable' || def.type === 'optional' || def.type === 'default') def = defOf(def.innerType);
    else if (def.type === 'pipe') def = defOf(def.in);
    else return { def, optional };
  }
}

const humanize = (protocol: string, name: string) => {
  const words = name.replace(new RegExp(`^${protocol}_`), '').replace(/_ms$/, ' (ms)').replace(/_days$/, ' (days)').replace(/_/g, ' ');
  const label = words.charAt(0).toUpperCase() + words.slice(1).replace(/\btls\b/g, 'TLS').replace(/\bdns\b/g, 'DNS');
  return label.replace(/\b(?:oid|json)\b/gi, (w) => w.toUpperCase());
};

/** How the console edits `name` of `protocol`, from its schema. */
function fieldForm(protocol: string, name: string, schema: z.ZodType): ProtocolFieldForm {
  const { def, optional } = unwrap(schema);
  const base = { name, label: humanize(protocol, name), optional };
  if (def.type === 'enum') return { ...base, kind: 'select', options: Object.values(def.entries as Record<string, string>) };
  if (def.type === 'boolean') return { ...base, kind: 'checkbox' };
  if (def.type === 'number') return { ...base, kind: 'number', ...(optional ? { hint: 'empty = none' } : {}) };
  if (def.type === 'array') {
    const el = unwrap(def.element as z.ZodType).def.type;
    if (el === 'number') return { ...base, kind: 'numbers', hint: `comma-separated${optional ? ', empty = none' : ''}` };
    return { ...base, kind: 'lines', hint: LINE_CODECS[name]?.hint ?? 'one per line' };
  }
  const long = def.type === 'string' && (def.checks as Array<{ _zod: { def: { check: string; maximum?: number } } }> | undefined)?.some((c) => c._zod.def.check === 'max_length' && (c._zod.def.maximum ?? 0) > 4096);
  return { ...base, kind: long ? 'textarea' : 'text', ...(optional ? { hint: 'optional' } : {}) };
}

let forms: ProtocolForm[] | null = null;
/** Every protocol's part of the form, in `PROTOCOLS` order (computed once). */
export function protocolForms(): ProtocolForm[] {
  forms ??= PROTOCOLS.map((p) => {
    const d = protocolDefinition(p);
    const names = d.formFields ?? Object.keys(d.fields);
    return { protocol: p, label: d.label ?? p.toUpperCase(), urlMeaning: d.urlMeaning, fields: names.map((n) => fieldForm(p, n, d.fields[n] as z.ZodType)) };
  });
  return forms;
}
const formOfProtocol = (p: string) => protocolForms().find((x) => x.protocol === p);

/** A protocol field's form text as its API value (the API's schema then judges it). */
function fieldJson(f: ProtocolFieldForm, raw: string | string[] | undefined): unknown {
  if (f.kind === 'checkbox') return raw !== undefined;
  const s = (Array.isArray(raw) ? (raw[0] ?? '') : (raw ?? '')).trim();
  if (f.kind === 'select') return s === '' ? undefined : s;
  if (f.kind === 'number') return s === '' ? (f.optional ? null : undefined) : numberish(s);
  if (f.kind === 'numbers') return s === '' ? (f.optional ? null : []) : s.split(/[\s,]+/).filter(Boolean).map(numberish);
  if (f.kind === 'lines') {
    const codec = LINE_CODECS[f.name];
    // Posted once per item by a picker (a group's members), or as one text of lines.
    const lines = (Array.isArray(raw) ? raw : [s]).flatMap((t) => t.split(/\r?\n/)).filter((l) => l.trim() !== '');
    return lines.map((l) => (codec ? codec.parse(l) : l.trim()));
  }
  return s === '' && f.optional ? null : s;
}

/** A stored protocol setting as form text. */
function fieldText(f: ProtocolFieldForm, v: unknown): string | undefined {
  if (f.kind === 'checkbox') return v === true ? 'on' : undefined;
  if (v === null || v === undefined) return '';
  if (f.kind === 'numbers') return (v as number[]).join(', ');
  if (f.kind === 'lines') return (v as unknown[]).map((x) => LINE_CODECS[f.name]?.format(x) ?? String(x)).join('\n');
  return String(v);
}

/**
 * The monitor form as the API's JSON body: the common fields (numbers typed as text become
 * numbers so the API's schema judges them; empty optional fields null) and the chosen protocol's
 * fields; other protocols' fieldsets are ignored.
 */
export function monitorJson(f: FormValues): Record<string, unknown> {
  const opt = (name: string) => (text(f, name).trim() === '' ? null : text(f, name));
  const protocol = text(f, 'protocol') || 'http';
  const body: Record<string, unknown> = {
    name: text(f, 'name'),
    url: text(f, 'url'),
    protocol,
    check_frequency: numberish(text(f, 'check_frequency') || '30'),
    regions: f.regions === undefined ? [] : Array.isArray(f.regions) ? f.regions : [f.regions],
    port: opt('port') === null ? null : numberish(text(f, 'port')),
    alerts_wait: numberish(text(f, 'alerts_wait') || '0'),
    timeout: numberish(text(f, 'timeout') || '10'),
    escalation_policy: opt('escalation_policy'),
    public_badges: text(f, 'public_badges') === 'on',
    // Tags and group (issue 33 point 5): only when the form has the fields (left out: kept as stored).
    ...(f.tags !== undefined ? { tags: text(f, 'tags').split(',').map((t) => t.trim()).filter((t) => t !== '') } : {}),
    ...(f.group !== undefined ? { group: text(f, 'group').trim() } : {}),
    // Dependencies (issue 36): only when the form had the picker (`depends_on_form`); nothing ticked clears them.
    ...(f.depends_on_form !== undefined ? { depends_on: f.depends_on === undefined ? [] : Array.isArray(f.depends_on) ? f.depends_on : [f.depends_on] } : {}),
  };
  for (const field of formOfProtocol(protocol)?.fields ?? []) {
    const key = `${protocol}.${field.name}`;
    const v = fieldJson(field, key in f ? f[key] : f[field.name]);
    if (v !== undefined) body[field.name] = v;
  }
  return body;
}

/**
 * A monitor's current settings as form values (edit form): its protocol's fields under
 * `<protocol>.<field>`, secrets as `***` (posted back unchanged, they keep the stored values).
 */
export function monitorFormValues(stored: Monitor): FormValues {
  const m = maskMonitor(stored);
  const values: FormValues = {
    ...newMonitorFormValues(),
    name: m.name,
    url: m.url,
    protocol: m.protocol,
    check_frequency: String(m.checkFrequencySeconds),
    regions: m.regions,
    port: m.port === null ? '' : String(m.port),
    alerts_wait: String(m.alertsWaitMinutes),
    timeout: String(m.timeoutSeconds),
    escalation_policy: m.escalationPolicyUuid ?? '',
    public_badges: m.publicBadges ? 'on' : '',
    tags: m.tags.map((t) => (t.value === '' ? t.name : `${t.name}:${t.value}`)).join(', '),
    group: m.group ?? '',
    depends_on: m.dependsOn ?? [],
  };
  for (const field of formOfProtocol(m.protocol)?.fields ?? []) values[`${m.protocol}.${field.name}`] = fieldText(field, m.settings[field.name]);
  return values;
}

/** The form values of a new monitor: every protocol's defaults. */
export function newMonitorFormValues(): FormValues {
  const values: FormValues = {};
  for (const pf of protocolForms()) {
    const defaults = protocolDefinition(pf.protocol as Protocol).defaults as Record<string, unknown>;
    for (const field of pf.fields) values[`${pf.protocol}.${field.name}`] = fieldText(field, defaults[field.name]);
  }
  return values;
}

/** "PostgreSQL · postgres://app:***@db:5432/app": the protocol's label and the target, its password hidden. */
export function targetInWords(m: Monitor): string {
  return `${formOfProtocol(m.protocol)?.label ?? m.protocol} · ${maskMonitor(m).url}`;
}

/** A monitor's protocol settings in words (monitor page), empty settings left out, secrets as `***`. */
export function settingsInWords(stored: Monitor): SettingLine[] {
  const m = maskMonitor(stored);
  const lines: SettingLine[] = [];
  for (const field of formOfProtocol(m.protocol)?.fields ?? []) {
    const v = m.settings[field.name];
    if (v === null || v === undefined || (Array.isArray(v) && v.length === 0) || v === '') continue;
    const value = field.kind === 'checkbox' ? (v ? 'yes' : 'no') : field.kind === 'lines' ? (fieldText(field, v) ?? '').split('\n').join(' · ') : (fieldText(field, v) ?? '');
    lines.push({ label: field.label.replace(/ \((ms|days)\)$/, ''), value: field.label.endsWith('(ms)') ? `${value} ms` : field.label.endsWith('(days)') ? `${value} days` : value });
  }
  return lines;
}

/**
 * The form's errors: the API's, with a problem of one list item (`assertions.2.op`) shown beside
 * its field as "line 3: op must be …".
 */
export function monitorFormErrors(e: unknown, base: (e: unknown) => FormErrors): FormErrors {
  const errors = base(e);
  if (e instanceof AppError) {
    for (const d of e.details ?? []) {
      const m = /^([a-z_]+)\.(\d+)(?:\.([a-z_]+))?$/.exec(d.path);
      if (m && errors.fields[m[1]!] === d.message) errors.fields[m[1]!] = `line ${Number(m[2]) + 1}: ${m[3] ? `${m[3]} ` : ''}${d.message}`;
    }
  }
  return errors;
}

/**
 * The regions the monitor form offers (issue 33 point 11: not the hosted service's 18 names): the
 * local probe's (`probe.region`), each region a remote agent has registered for since start (named
 * after its agents, "offline" when none of them polls now), and any region the monitor already has
 * (kept ticked: the local probe checks a region no agent serves, docs/api.md "Regions and remote
 * probes"). The local region first, then by name. `probes` is `core.probes.list()`.
 */
export function regionChoices(probes: ProbeListing[], localRegion: string, chosen: readonly string[]): RegionChoice[] {
  const agents = new Map<string, ProbeListing[]>();
  for (const p of probes) if (p.id !== LOCAL_PROBE) agents.set(p.region, [...(agents.get(p.region) ?? []), p]);
  const names = [...new Set([...agents.keys(), ...chosen])].filter((r) => r !== localRegion).sort();
  const label = (r: string): string => {
    const list = agents.get(r);
    if (!list) return 'no agent registered: checked by this server\'s probe';
    const online = list.some((a) => a.status === 'online');
    return `agent${list.length === 1 ? '' : 's'} ${list.map((a) => a.name).join(', ')}${online ? '' : ', offline'}`;
  };
  return [{ region: localRegion, label: `this server's probe${agents.has(localRegion) ? ` and ${label(localRegion)}` : ''}` }, ...names.map((r) => ({ region: r, label: label(r) }))];
}
