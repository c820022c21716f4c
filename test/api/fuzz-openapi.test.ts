import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { samlKeys } from '../support/idp.ts';
import { startTestPharos, TEST_DRIVER, type TestPharos } from '../support/pharos.ts';

// Issue #30: every operation the running server lists in /openapi.json, plus the anonymous routes
// (status pages, sign-in, SSO, subscribe, pings), fuzzed from one seed: values generated from each
// operation's schema, then mutated (NUL characters, 5,000-deep nesting, a 100,000-deep body, huge and
// odd numbers, wrong types, very long strings, odd Unicode, missing and extra fields, malformed
// bodies, wrong media types). Every answer is a 2xx, 3xx or 4xx, never a 5xx.
//
// CI runs a bounded form (2,500 requests). The full run: PHAROS_FUZZ_REQUESTS=10000 (seed: PHAROS_FUZZ_SEED),
//   node --import tsx --test test/api/fuzz-openapi.test.ts            (SQLite)
//   PHAROS_TEST_DRIVER=postgres node --import tsx --test test/api/fuzz-openapi.test.ts
// The requests are a function of the seed and the answers: they are generated batch by batch, and the
// ids the fuzz itself creates join the pool of path parameters between batches, in request order.

const TOTAL = Number(process.env.PHAROS_FUZZ_REQUESTS ?? 2500);
const SEED = Number(process.env.PHAROS_FUZZ_SEED ?? 20260530);
const BATCH = 16;

/** Mulberry32: a seeded generator, so a failing request is reproduced from the printed seed. */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Schema = any;

/** A request the fuzz sends: `body` is the exact text (or a FormData), `label` says what it is when it fails. */
interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | FormData;
  token: string | null;
  label: string;
  /** The pool an id in a 2xx answer joins (a created resource), and the pool a 2xx DELETE removes `deletes` from. */
  family?: string;
  deletes?: string;
}

/** Odd strings: NUL, surrogates (paired and not), control characters, right-to-left override, zero-width, combining, huge. */
const ODD_STRINGS = [
  '\u0000', 'a\u0000b', '\u0000'.repeat(50), '\ud800', '\udfff\ud800', '😀', 'Ω≈ç√∫', '\u202eevil', '\u200b', 'e\u0301\u0301\u0301', '\uffff', '\ufeff',
  '\u0001\u001f\u007f', ' ', '', '\r\n', '<script>alert(1)</script>', "'; DROP TABLE monitors; --", '${{7*7}}', '../../etc/passwd', '%00', '%', '\\u0000',
  'null', 'true', '0', '-0', 'NaN', 'Infinity', '1e400', '9'.repeat(400), 'x'.repeat(100_000), '😀'.repeat(20_000), 'é'.repeat(70_000),
];
/** Huge and odd numbers (as JSON values; `1e400` and `-1e400` are written as literals, which JSON.parse reads as ±Infinity). */
const ODD_NUMBERS: unknown[] = [1e308, -1e308, 2 ** 64, -(2 ** 64), 2 ** 53 + 1, -0, 5e-324, 0.1, -1, 0, 2 ** 31, -(2 ** 31), 4294967296, 1.5, 'NaN', 'Infinity', '-Infinity', '1e308', '2e64', '0x10', ' 1 ', '1_000'];
/** Literal JSON texts no JSON.stringify can write: spliced into a body in place of a value. */
const RAW_LITERALS = ['1e400', '-1e400', '123456789012345678901234567890', '-0.0e-0', '1E+2'];

/** A plausible value for a string field without an enum, by its name (the schema's patterns are not generated). */
function stringFor(r: Rand, name: string, pools: Pools, schema: Schema): string {
  const n = name.toLowerCase();
  if (n.includes('date') || n === 'at' || n === 'from' || n === 'to') return pick(r, ['2026-05-01T22:00:00Z', '2026-05-02T00:00:00.000Z', '2026-05-01', new Date(Date.UTC(2026, 4, 1)).toISOString()]);
  if (n === 'subdomain') return `fz${Math.floor(r() * 1e6)}`;
  if (n === 'hostname') return `s${Math.floor(r() * 1e6)}.example.invalid`;
  if (n.includes('url') || n === 'website' || n === 'logo' || n === 'favicon' || n === 'entry_point') return pick(r, ['http://127.0.0.1:9/', 'https://example.invalid/a?b=c']);
  if (n.includes('email') || n === 'value') return `f${Math.floor(r() * 1e6)}@example.invalid`;
  if (n === 'phone') return '+15555550100';
  if (n === 'timezone') return pick(r, ['Europe/Berlin', 'UTC', 'America/New_York']);
  if (n === 'cron') return pick(r, ['0 2 * * *', '*/5 * * * *']);
  if (n === 'accent_color') return '#abcdef';
  if (n === 'logo_height') return '40px';
  if (n === 'google_analytics') return 'G-ABCD1234';
  if (n === 'password') return 'correct horse battery';
  if (n === 'region') return 'london';
  if (n.includes('uuid') || n === 'monitor' || n === 'escalation_policy') return pick(r, [...(pools.get('monitors') ?? []), ...(pools.get('healthchecks') ?? []), ...(pools.get('components') ?? []), 'none']);
  if (schema?.minLength && schema.minLength > 8) return 'x'.repeat(schema.minLength);
  return pick(r, ['fuzz', 'Fuzz ✓', 'a b c']);
}

type Pools = Map<string, string[]>;

/** A value following `schema` (JSON Schema as @hono/zod-openapi writes it), mostly valid, so deeper rules are reached. */
function fromSchema(r: Rand, schema: Schema, name: string, pools: Pools, depth = 0): unknown {
  if (!schema || depth > 6) return null;
  if (schema.enum) return pick(r, schema.enum);
  if (schema.const !== undefined) return schema.const;
  if (schema.anyOf || schema.oneOf) return fromSchema(r, pick(r, schema.anyOf ?? schema.oneOf), name, pools, depth);
  if (schema.allOf) return Object.assign({}, ...schema.allOf.map((s: Schema) => fromSchema(r, s, name, pools, depth)));
  let type = schema.type;
  if (Array.isArray(type)) type = r() < 0.1 && type.includes('null') ? 'null' : (type.find((t: string) => t !== 'null') ?? 'null');
  switch (type) {
    case 'null':
      return null;
    case 'boolean':
      return r() < 0.5;
    case 'integer':
    case 'number': {
      const lo = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 0);
      const hi = schema.maximum ?? lo + 100;
      return Math.floor(lo + r() * (Math.min(hi, lo + 1000) - lo + 1));
    }
    case 'string':
      return stringFor(r, name, pools, schema);
    case 'array': {
      const min = schema.minItems ?? 0;
      const count = Math.min(schema.maxItems ?? 3, min + Math.floor(r() * 3));
      return Array.from({ length: count }, () => fromSchema(r, schema.items, name, pools, depth + 1));
    }
    case 'object':
    default: {
      if (!schema.properties && !schema.additionalProperties) return {};
      const out: Record<string, unknown> = {};
      const required = new Set<string>(schema.required ?? []);
      for (const [key, sub] of Object.entries<Schema>(schema.properties ?? {})) if (required.has(key) || r() < 0.6) out[key] = fromSchema(r, sub, key, pools, depth + 1);
      if (schema.additionalProperties && typeof schema.additionalProperties === 'object') out[pick(r, ['en', 'de', 'fr', 'xx'])] = fromSchema(r, schema.additionalProperties, name, pools, depth + 1);
      return out;
    }
  }
}

/** Every [container, key] slot of a JSON value, for a mutation to land anywhere in it. */
function slots(value: unknown): Array<[Record<string, unknown> | unknown[], string | number]> {
  const out: Array<[Record<string, unknown> | unknown[], string | number]> = [];
  const stack = [value];
  while (stack.length) {
    const v = stack.pop();
    if (Array.isArray(v)) v.forEach((x, i) => (out.push([v, i]), stack.push(x)));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) out.push([v as Record<string, unknown>, k]), stack.push(x);
  }
  return out;
}

const nest = (depth: number, leaf = '1') => '['.repeat(depth) + leaf + ']'.repeat(depth);

/** A value of a random wrong type (or an odd one of any type). */
function wrongValue(r: Rand): unknown {
  return pick<() => unknown>(r, [
    () => pick(r, ODD_STRINGS), () => pick(r, ODD_NUMBERS), () => r() < 0.5, () => null, () => [], () => ({}),
    () => [pick(r, ODD_STRINGS), pick(r, ODD_NUMBERS)], () => ({ en: pick(r, ODD_STRINGS) }), () => ({ __proto__: { polluted: 1 }, constructor: { prototype: 1 } }),
  ])();
}

/** Mutates a generated body in place (0-3 mutations) and writes it as text; some mutations act on the text itself. */
function mutateBody(r: Rand, body: unknown): string {
  const roll = r();
  if (roll < 0.15) return JSON.stringify(body); // left valid: the core's own rules are reached
  if (roll < 0.17) return nest(100_000); // a 100,000-deep body
  if (roll < 0.2) return pick(r, ['', '{', '{"a":}', 'null', '[]', '"str"', '123', 'true', '\u0000', '{"a":1}garbage', '{"a":1,"a":2}', '\ufeff{}', '{"__proto__":{"polluted":1}}']);
  const rounds = 1 + Math.floor(r() * 3);
  let raw: string | null = null;
  let deep: string | null = null;
  for (let i = 0; i < rounds; i++) {
    const all = slots(body);
    const slot = all.length > 0 ? pick(r, all) : null;
    const m = r();
    if (body === null || typeof body !== 'object') body = {};
    if (!slot || m < 0.12) (body as Record<string, unknown>)[pick(r, ['junk', '__proto__', 'constructor', 'x\u0000', 'uuid', 'id', ''])] = wrongValue(r); // an extra field
    else if (m < 0.24 && !Array.isArray(slot[0])) delete (slot[0] as Record<string, unknown>)[slot[1] as string]; // a missing (maybe required) field
    else if (m < 0.42) (slot[0] as Record<string, unknown>)[slot[1] as string] = pick(r, ODD_STRINGS);
    else if (m < 0.58) (slot[0] as Record<string, unknown>)[slot[1] as string] = pick(r, ODD_NUMBERS);
    else if (m < 0.7) (slot[0] as Record<string, unknown>)[slot[1] as string] = wrongValue(r);
    else if (m < 0.8) {
      (slot[0] as Record<string, unknown>)[slot[1] as string] = '__DEEP__';
      deep = nest(5000);
    } else if (m < 0.88) {
      (slot[0] as Record<string, unknown>)[slot[1] as string] = '__RAW__';
      raw = pick(r, RAW_LITERALS);
    } else if (typeof slot[0][slot[1] as never] === 'string') (slot[0] as Record<string, unknown>)[slot[1] as string] = `${slot[0][slot[1] as never]}\u0000`; // NUL at the end of a valid value
    else (slot[0] as Record<string, unknown>)[slot[1] as string] = Array.from({ length: 2000 }, () => pick(r, ODD_NUMBERS)); // a long array
  }
  let text = JSON.stringify(body);
  if (deep) text = text.replace('"__DEEP__"', deep);
  if (raw) text = text.replace('"__RAW__"', raw);
  if (r() < 0.05) text = text.slice(0, Math.floor(r() * text.length)); // cut short
  return text;
}

/** An odd path segment in place of an id: NUL, a long one, unicode, invalid percent-encoding, a traversal. */
const ODD_SEGMENTS = ['%00', 'x%00', 'mon_%00', '%2500', 'a'.repeat(5000), '%F0%9F%98%80', '%ff%fe', '%', '..%2F..%2Fetc', '%2e%2e', 'null', '0', '-1', '1e400', 'NaN', '%20', '%0A', '%E2%80%AE', '__proto__', 'constructor'];
/** An odd query value. */
const ODD_QUERY = ['%00', 'a%00b', '-1', '1e308', '1e400', 'NaN', '99999999999999999999', '', '%ff', '%', 'x'.repeat(10_000), '2026-13-45', 'true', '[]', '%E2%80%AE'];

/** A query string for `params` (OpenAPI `in: query`), some values from the schema, some odd, sometimes repeated or unknown. */
function queryFor(r: Rand, params: Schema[], pools: Pools): string {
  const parts: string[] = [];
  for (const p of params) {
    if (r() < 0.3) continue;
    const value = r() < 0.5 ? encodeURIComponent(String(fromSchema(r, p.schema, p.name, pools))) : pick(r, ODD_QUERY);
    parts.push(`${p.name}=${value}`);
    if (r() < 0.1) parts.push(`${p.name}=${pick(r, ODD_QUERY)}`);
  }
  if (r() < 0.1) parts.push(`${pick(r, ['x', '%00', 'a%00b', '__proto__'])}=${pick(r, ODD_QUERY)}`);
  return parts.length ? `?${parts.join('&')}` : '';
}

/** The test IdP's certificate (made in `before`). */
let CERT = '';
const AGENT = 'prb_fuzzfuzzfuzzfuzzfuzzfu';
const HC = { name: 'h', period_value: 1, period_type: 'hours', grace_period_value: 5, grace_period_type: 'minutes' };
/**
 * A valid body for each write operation (`METHOD template`): half the bodies start from it instead of
 * from the schema, so a mutation of one field reaches the core's own rules and the store.
 */
const VALID: Record<string, (r: Rand, pools: Pools) => unknown> = {
  'POST /v1/monitors': () => ({ name: 'm', url: 'http://127.0.0.1:9/', paused: true }),
  'PUT /v1/monitors/{uuid}': () => ({ name: 'm2', url: 'http://127.0.0.1:9/x', paused: true }),
  'POST /v1/healthchecks': () => ({ ...HC }),
  'PUT /v1/healthchecks/{uuid}': () => ({ ...HC, name: 'h2' }),
  'POST /v2/healthchecks': () => ({ ...HC, cron: '0 2 * * *', timezone: 'Europe/Berlin', period_value: undefined, period_type: undefined }),
  'PUT /v2/healthchecks/{uuid}': () => ({ ...HC, name: 'h3' }),
  'POST /v2/outages': () => ({ description: 'd', severity: 'major' }),
  'POST /v2/outages/{uuid}/acknowledge': () => ({ message: 'm' }),
  'POST /v2/outages/{uuid}/unacknowledge': () => ({ message: 'm' }),
  'POST /v2/outages/{uuid}/resolve': () => ({ message: 'm' }),
  'POST /v2/outages/{uuid}/escalate': () => ({ message: 'm' }),
  'POST /v1/maintenance-windows': (_, pools) => ({ name: 'mw', start_date: '2026-05-01T22:00:00Z', end_date: '2026-05-01T23:00:00Z', monitors: pools.get('monitors')!.slice(0, 1) }),
  'PUT /v1/maintenance-windows/{uuid}': () => ({ name: 'mw2', start_date: '2026-05-02T22:00:00Z', end_date: '2026-05-02T23:00:00Z', monitors: [] }),
  'POST /v3/incidents': (_, pools) => ({ title: { en: 'i', de: 'j' }, type: 'incident', statuspages: pools.get('statuspages')!.slice(0, 1) }),
  'PUT /v3/incidents/{uuid}': () => ({ title: { en: 'i2' } }),
  'POST /v3/incidents/{uuid}/updates': () => ({ text: { en: 'u' }, type: 'investigating', date: '2026-05-01T22:30:00Z' }),
  'POST /v1/components': () => ({ name: 'c', status: 'degraded' }),
  'PUT /v1/components/{uuid}': () => ({ name: 'c2' }),
  'POST /v2/statuspages': (r) => ({ name: 'S', subdomain: `fz${Math.floor(r() * 1e9)}`, description: { en: 'd' } }),
  'PUT /v2/statuspages/{uuid}': (_, pools) => ({ name: 'Fuzz', sections: [{ name: 's', services: [{ monitor_uuid: pools.get('monitors')![0] }] }] }),
  'POST /v2/statuspages/{uuid}/subscribers': (r) => ({ email: `s${Math.floor(r() * 1e9)}@example.invalid` }),
  'POST /v1/sso-connections': () => ({ name: 'S', provider: 'saml', entry_point: 'https://idp.example.invalid/sso', issuer: 'pharos', idp_certificate: CERT }),
  'PUT /v1/sso-connections/{uuid}': () => ({ name: 'S2', entry_point: 'https://idp.example.invalid/sso2', issuer: 'pharos', idp_certificate: CERT }),
  'POST /v1/probes/poll': (r) => ({ agent: AGENT, region: 'london', name: 'fz', version: '1', assignment: `fz${Math.floor(r() * 1e9)}` }),
  'POST /v1/probes/results': (_, pools) => ({ agent: AGENT, region: 'london', batch: 'b1', results: [{ monitor: pools.get('monitors')![0], at: 1, ok: true, latencyMs: 5, statusCode: 200, reason: null }] }),
};
/** The pool (resource family) of a path: `/v2/healthchecks/{uuid}` → `healthchecks`. */
const familyOf = (template: string) => template.split('/')[2]!;

/** One request for an operation of /openapi.json. */
function apiRequest(r: Rand, template: string, method: string, op: Schema, pools: Pools): FuzzRequest {
  const params: Schema[] = op.parameters ?? [];
  const family = familyOf(template);
  let deletes: string | undefined;
  const path = template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const pool = name === 'id' ? (pools.get('subscribers') ?? []) : (pools.get(family) ?? []);
    const own = pools.get(`fuzz:${family}`) ?? [];
    const roll = r();
    // A DELETE with a real id takes one the fuzz created, so the set-up resources stay for the other operations.
    if (method === 'DELETE' && name !== 'id' && roll < 0.6) return own.length ? (deletes = pick(r, own)) : 'missing';
    if (roll < 0.7 && pool.length) return pick(r, pool);
    return pick(r, ODD_SEGMENTS);
  });
  const headers: Record<string, string> = {};
  let body: string | undefined;
  const schema = op.requestBody?.content?.['application/json']?.schema;
  const valid = VALID[`${method} ${template}`];
  if (schema || valid || (method !== 'GET' && method !== 'DELETE' && r() < 0.3)) {
    const base = valid && r() < 0.5 ? JSON.parse(JSON.stringify(valid(r, pools))) : fromSchema(r, schema ?? { type: 'object', properties: { message: { type: 'string' } } }, '', pools);
    body = mutateBody(r, base);
    headers['content-type'] = r() < 0.9 ? 'application/json' : pick(r, ['text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1', 'multipart/form-data', 'application/vnd.api+json']);
  }
  // The agents' routes take a probe token (the write token is refused 403 there).
  const token = r() < 0.03 ? pick(r, [null, 'wrong-token', 'a%00b', 'x'.repeat(5000)]) : template.startsWith('/v1/probes/') ? (pools.get('probeToken')![0]!) : undefined;
  return { method, path: path + queryFor(r, params.filter((p) => p.in === 'query'), pools), headers, body, token: token === undefined ? 'default' : token, label: `${method} ${template}`, family: method === 'POST' && !template.includes('{') ? family : undefined, deletes };
}

/** A form body (urlencoded, sometimes multipart) with `fields`, mutated: NUL, odd strings, extra and missing fields. */
function formBody(r: Rand, fields: Record<string, string>, headers: Record<string, string>): string | FormData {
  const out: Array<[string, string]> = [];
  for (const [k, v] of Object.entries(fields)) {
    if (r() < 0.15) continue;
    out.push([k, r() < 0.4 ? pick(r, ODD_STRINGS) : r() < 0.2 ? `${v}\u0000` : v]);
  }
  if (r() < 0.15) out.push([pick(r, ['x', 'a\u0000', '__proto__', 'email']), pick(r, ODD_STRINGS)]);
  if (r() < 0.2) {
    const form = new FormData();
    for (const [k, v] of out) form.append(k, v);
    if (r() < 0.2) form.append('file', new Blob(['\u0000binary\u0000']), 'a\u0000.bin');
    return form;
  }
  headers['content-type'] = r() < 0.9 ? 'application/x-www-form-urlencoded' : pick(r, ['multipart/form-data', 'text/plain', 'application/json']);
  return new URLSearchParams(out).toString();
}

/** One request for an anonymous route (no token): status pages, console sign-in and set-up, SSO, pings, health. */
function anonymousRequest(r: Rand, pools: Pools): FuzzRequest {
  const sub = r() < 0.7 ? 'fuzz' : pick(r, ODD_SEGMENTS);
  const sso = r() < 0.6 ? pick(r, pools.get('sso-connections') ?? ['sso_x']) : pick(r, ODD_SEGMENTS);
  const tok = r() < 0.6 ? pick(r, pools.get('pingTokens') ?? ['tok_x']) : pick(r, ['tok_%00', 'x', 'tok_' + 'a'.repeat(200)]);
  const headers: Record<string, string> = { origin: 'ORIGIN' };
  if (r() < 0.15) headers.cookie = `${pick(r, ['pharos_session', 'pharos_page', 'pharos_sso', 'x'])}=${pick(r, ['%00', 'a%00b', 'x', '%ff', '%', 'a'.repeat(5000)])}`;
  const q = (names: string[]) => queryFor(r, names.map((name) => ({ name, schema: { type: 'string' } })), pools);
  const routes: Array<() => [string, string, Record<string, string>?]> = [
    () => ['GET', `/status/${sub}${q(['page', 'lang'])}`],
    () => ['GET', `/status/${sub}/history${q(['page'])}`],
    () => ['GET', `/status/${sub}/${pick(r, ['feed.atom', 'summary.json', 'badge.svg', 'subscribe'])}${q(['s', 't', 'lang'])}`],
    () => ['POST', `/status/${sub}/subscribe`, { channel: pick(r, ['email', 'slack', 'teams', 'sms', 'x']), target: 'a@example.invalid' }],
    () => ['POST', `/status/${sub}/subscribe/verify`, { s: 'x', code: '123456', t: 'y' }],
    () => ['POST', `/status/${sub}/login`, { password: 'pw', next: '/' }],
    () => ['GET', `/status/${sub}/sso/${pick(r, ['oidc', 'saml', 'complete'])}${q(['state', 'code', 'token'])}`],
    () => ['GET', pick(r, ['/login', '/login/totp', '/setup/token', '/login/sso', '/', '/monitors', '/settings']) + q(['next', 'token', 'connection'])],
    () => ['POST', '/login', { email: 'a@example.invalid', password: 'x', next: '/' }],
    () => ['POST', '/login/totp', { code: '123456' }],
    () => ['POST', `/setup/token${q(['token'])}`, { token: 'x', email: 'a@example.invalid', name: 'n', password: 'correct horse battery' }],
    () => ['GET', `/sso/begin/${sso}${q(['next', 'target'])}`],
    () => ['GET', `/sso/oidc/callback${q(['state', 'code', 'error'])}`],
    () => ['GET', `/sso/saml/${sso}/metadata`],
    () => ['POST', `/sso/saml/${sso}/acs`, { SAMLResponse: Buffer.from('<x/>').toString('base64'), RelayState: 'x' }],
    () => [pick(r, ['GET', 'HEAD', 'POST']), `/ping/${tok}${pick(r, ['', '/start', '/fail', '/0', '/255', '/256', '/%00', '/x'])}`],
    () => ['GET', pick(r, ['/healthz', '/openapi.json', '/docs', '/metrics', '/_pharos/status.css', '/nowhere%00', '/v1/monitors'])],
  ];
  const [method, path, fields] = pick(r, routes)();
  let body: string | FormData | undefined;
  if (fields) body = formBody(r, fields, headers);
  else if (method === 'POST') body = pick(r, ['', 'a\u0000b', 'x'.repeat(20_000), '{"a":1}', '\u0000'.repeat(100), Buffer.from([0, 255, 254, 0]).toString('latin1')]);
  const template = path.replace(/\?.*/, '').replace(`/status/${sub}`, '/status/{sub}').replace(`/sso/begin/${sso}`, '/sso/begin/{sso}').replace(`/saml/${sso}/`, '/saml/{sso}/').replace(`/ping/${tok}`, '/ping/{token}');
  return { method, path, headers, body, token: null, label: `anonymous ${method} ${template}` };
}

let p: TestPharos;
const pools: Pools = new Map();
let doc: Schema;

before(async () => {
  p = await startTestPharos();
  const made = async (family: string, path: string, json: unknown, id: (b: Schema) => string) => {
    const res = await p.api(path, { method: 'POST', json });
    const text = await res.text();
    assert.ok(res.status < 300, `set-up ${path}: ${res.status} ${text}`);
    pools.set(family, [...(pools.get(family) ?? []), id(JSON.parse(text))]);
  };
  await made('monitors', '/v1/monitors', { name: 'target', url: 'http://127.0.0.1:9/', paused: true }, (b) => b.uuid);
  await made('healthchecks', '/v1/healthchecks', { name: 'h', period_value: 1, period_type: 'hours', grace_period_value: 5, grace_period_type: 'minutes' }, (b) => b.healthcheck.uuid);
  pools.set('pingTokens', [...pools.get('healthchecks')!]);
  await made('outages', '/v2/outages', { description: 'fuzz' }, (b) => b.outage.uuid);
  await made('maintenance-windows', '/v1/maintenance-windows', { name: 'mw', start_date: '2026-05-01T22:00:00Z', end_date: '2026-05-01T23:00:00Z', monitors: [] }, (b) => b.uuid);
  await made('incidents', '/v3/incidents', { title: { en: 'i' }, type: 'incident' }, (b) => b.uuid);
  await made('components', '/v1/components', { name: 'c' }, (b) => b.uuid);
  await made('statuspages', '/v2/statuspages', { name: 'Fuzz', subdomain: 'fuzz', subscribe: { enabled: true, email: true } }, (b) => b.uuid);
  await made('subscribers', `/v2/statuspages/${pools.get('statuspages')![0]}/subscribers`, { email: 'sub@example.invalid' }, (b) => String(b.id ?? b.uuid));
  CERT = samlKeys().cert;
  await made('sso-connections', '/v1/sso-connections', { name: 'S', provider: 'saml', entry_point: 'https://idp.example.invalid/sso', issuer: 'pharos', idp_certificate: CERT }, (b) => b.uuid);
  pools.set('probeToken', [(await p.core.users.createToken({ email: 'agent@example.invalid', name: 'fuzz agent', scope: 'probe', regions: ['london'] }, { type: 'system', id: 'test', name: 'test' })).token]);
  doc = await (await fetch(`${p.url}/openapi.json`)).json();
});
after(() => p?.cleanup());

test(`${TOTAL} fuzzed requests over every operation of /openapi.json and the anonymous routes never give a 5xx (${TEST_DRIVER}, seed ${SEED})`, async () => {
  const r = rng(SEED);
  const ops: Array<[string, string, Schema]> = [];
  for (const [path, item] of Object.entries<Schema>(doc.paths)) for (const [method, op] of Object.entries<Schema>(item)) ops.push([path, method.toUpperCase(), op]);
  assert.ok(ops.length >= 60, `the document lists the operations: ${ops.length}`);
  const counts = new Map<number, number>();
  const seen = new Set<string>();
  const byOperation = new Map<string, Record<string, number>>();
  const failures: string[] = [];
  for (let i = 0; i < TOTAL; i += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, TOTAL - i) }, (_, j): FuzzRequest => {
      // Every operation at least once in each round of the list, then at random; a quarter anonymous.
      const n = i + j;
      if (n < ops.length) return apiRequest(r, ops[n]![0], ops[n]![1], ops[n]![2], pools);
      if (r() < 0.25) return anonymousRequest(r, pools);
      const [path, method, op] = pick(r, ops);
      return apiRequest(r, path, method, op, pools);
    });
    const answers = await Promise.all(
      batch.map(async (req) => {
        if (req.headers.origin === 'ORIGIN') req.headers.origin = p.url;
        // No request may hang (a held agent poll answers at once for an assignment that is not current).
        const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : req.body;
        try {
          const res = await p.api(req.path, { method: req.method, headers: req.headers, body, token: req.token === 'default' ? undefined : req.token, redirect: 'manual', signal: AbortSignal.timeout(30_000) });
          return { res, text: await res.text() };
        } catch (e) {
          // The server may answer before the body is sent and close the connection: a body over 1 MiB (413),
          // a ping with a body to an unknown token (404). The client then sees no answer; anything else is a failure.
          const big = typeof body === 'string' && Buffer.byteLength(body) > 1024 * 1024;
          const ping = req.path.startsWith('/ping/') && body !== undefined;
          return { res: null, text: `${(e as Error).message}: ${String((e as { cause?: Error }).cause?.message)}${big || ping ? ' (closed early: expected)' : ''}` };
        }
      }),
    );
    batch.forEach((req, j) => {
      const answer = answers[j]!;
      const text = answer.text;
      const res = answer.res ?? { status: text.endsWith('(closed early: expected)') ? 499 : 599, headers: new Headers() };
      counts.set(res.status, (counts.get(res.status) ?? 0) + 1);
      seen.add(req.label);
      const tally = byOperation.get(req.label) ?? {};
      const bucket = res.status < 300 ? '2xx' : res.status < 400 ? '3xx' : String(res.status);
      tally[bucket] = (tally[bucket] ?? 0) + 1;
      byOperation.set(req.label, tally);
      const shown = typeof req.body === 'string' ? req.body.slice(0, 300) : req.body ? `(multipart) ${JSON.stringify([...req.body.entries()].map(([k, v]) => [k, typeof v === 'string' ? v.slice(0, 80) : 'file']))}` : '';
      const where = `seed ${SEED}, request #${i + j}: ${req.method} ${req.path.slice(0, 200)} ${JSON.stringify(req.headers)}\n  ${shown}\n  → ${res.status} ${text.slice(0, 300)}`;
      if (res.status >= 500) failures.push(where);
      else if (res.status >= 400 && /json/.test(res.headers.get('content-type') ?? '') && req.method !== 'HEAD') {
        // The API's error shape: {error, message} (a status page's and the console's errors are HTML).
        const err = JSON.parse(text);
        if (typeof err.error !== 'string' || err.error.length === 0 || err.message !== err.error) failures.push(`${where}\n  (not the {error, message} shape)`);
      }
      if (res.status < 300 && req.family) {
        const made = JSON.parse(text);
        const id = made.uuid ?? made.healthcheck?.uuid ?? made.outage?.uuid;
        if (typeof id === 'string') pools.set(`fuzz:${req.family}`, [...(pools.get(`fuzz:${req.family}`) ?? []), id]);
      }
      if (res.status < 300 && req.deletes) pools.set(`fuzz:${familyOf(req.label.split(' ')[1]!)}`, (pools.get(`fuzz:${familyOf(req.label.split(' ')[1]!)}`) ?? []).filter((x) => x !== req.deletes));
    });
  }
  const byClass = { '2xx/3xx': 0, '4xx': 0, '5xx': 0 };
  for (const [status, n] of counts) byClass[status >= 500 ? '5xx' : status >= 400 ? '4xx' : '2xx/3xx'] += n;
  const summary = `${TEST_DRIVER}: ${TOTAL} requests, ${JSON.stringify(byClass)}, by status ${JSON.stringify(Object.fromEntries([...counts].sort((a, b) => a[0] - b[0])))}`;
  console.log(`# fuzz ${summary}`);
  // PHAROS_FUZZ_VERBOSE=1: the answers per operation (which ones the valid bodies reach).
  if (process.env.PHAROS_FUZZ_VERBOSE) for (const [label, tally] of [...byOperation].sort()) console.log(`#   ${label}: ${JSON.stringify(tally)}`);
  assert.deepEqual(failures.slice(0, 20), [], `${failures.length} bad answers; ${summary}`);
  for (const [path, method] of ops) assert.ok(seen.has(`${method} ${path}`), `${method} ${path} was fuzzed`);
  assert.ok(byClass['4xx'] > TOTAL / 4 && byClass['2xx/3xx'] > TOTAL / 20, `most requests are refused, some pass: ${summary}`);
  assert.equal(({} as Record<string, unknown>).polluted, undefined, 'no prototype polluted');
});
