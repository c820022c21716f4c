import { z } from 'zod';
import { SEED_DEFAULTS, SEED_FIELDS, SEED_SECRETS, validateSeed } from '../seed.ts';
import { urlTarget } from '../target.ts';
import type { ProtocolDefinition } from '../types.ts';
import { TLS_EXPIRY_FIELD } from '../expiry.ts';
import { invalid } from '../../lib/errors.ts';
import type jsonata from 'jsonata';

/**
 * Assertions on an HTTP response (docs/api.md "Check types"). A small, closed syntax:
 * - `{source: "json", path: "$.status", op, value}`: a JSONPath (jsonpath-plus) into the JSON body;
 *   ops `equals`, `not_equals`, `contains`, `matches` (value = a regex source), `exists`, `lt`, `gt`;
 * - `{source: "header", path: "X-Name", op, value}`: ops `exists`, `equals`, `contains`, `matches`;
 * - `{source: "body", op, value}`: ops `contains`, `not_contains`, `matches`;
 * - `{source: "response_time", op: "lt", value: ms}`: the check fails when the response took longer;
 * - `{source: "json_query", path: "<JSONata>", op, value}`: Uptime Kuma 2.x's json-query (issue 36): a
 *   JSONata expression (the `jsonata` package, as Kuma evaluates it) whose single value is compared as
 *   text with `value` (`equals`, `not_equals`, `contains`) or as numbers (`lt`, `lte`, `gt`, `gte`).
 */
export const ASSERTION_OPS = {
  json: ['equals', 'not_equals', 'contains', 'matches', 'exists', 'lt', 'gt'],
  header: ['exists', 'equals', 'contains', 'matches'],
  body: ['contains', 'not_contains', 'matches'],
  response_time: ['lt'],
  json_query: ['equals', 'not_equals', 'contains', 'lt', 'lte', 'gt', 'gte'],
} as const;

/** Ops comparing numbers (their `value` must be a number). */
const NUMERIC_OPS = new Set(['lt', 'lte', 'gt', 'gte']);

/** The `jsonata` package's function, once loaded by {@link loadJsonata}. */
let jsonataFn: typeof jsonata | undefined;

/**
 * The `jsonata` package, imported on first use (issue 38 point 1: a server without `json_query`
 * assertions never loads its ~1.5 MB). Its default export is the function, from source and inside the
 * single executable alike (src/build/bundle.ts: a package bundled apart keeps its default export).
 */
export async function loadJsonata(): Promise<typeof jsonata> {
  jsonataFn ??= (await import('jsonata')).default;
  return jsonataFn;
}

/**
 * Hands `jsonata` over to the checks of this module for a process that loaded it statically
 * (`pharos import kuma`, src/core/import-kuma.ts, checks expressions inside one synchronous transaction).
 * @param fn the package's default export
 */
export function provideJsonata(fn: typeof jsonata): void {
  jsonataFn = fn;
}

/**
 * Loads `jsonata` when `body` (a monitor body, before validation) has a `json_query` assertion, so a
 * synchronous parse of it with the schemas below can check the expression ({@link jsonataSyntaxError}).
 * Callers that parse monitor bodies synchronously (the console's form, MCP's tools, `pharos import kuma`)
 * await it first; the API parses asynchronously and needs nothing.
 */
export async function prepareAssertions(body: unknown): Promise<void> {
  const assertions = (body as { assertions?: unknown } | null | undefined)?.assertions;
  if (Array.isArray(assertions) && assertions.some((a) => (a as { source?: unknown } | null)?.source === 'json_query')) await loadJsonata();
}

/** Why a JSONata expression does not compile, or null when it does (its parser's message and position). */
function syntaxErrorOf(parse: typeof jsonata, expression: string): string | null {
  try {
    parse(expression);
    return null;
  } catch (e) {
    const err = e as { message?: string; position?: number };
    return `is not a valid JSONata expression: ${err.message ?? String(e)}${typeof err.position === 'number' ? ` (at ${err.position})` : ''}`;
  }
}

/**
 * Why a JSONata expression does not compile, or null when it does (its parser's message and position).
 * @throws Error when `jsonata` is not loaded yet: await {@link loadJsonata} first
 */
export function jsonataSyntaxError(expression: string): string | null {
  if (!jsonataFn) throw new Error('jsonata is not loaded yet: await loadJsonata() first');
  return syntaxErrorOf(jsonataFn, expression);
}

const AssertionObject = z
  .object(
    {
      source: z.enum(['json', 'header', 'body', 'response_time', 'json_query'], { error: 'must be one of json, header, body, response_time, json_query' }),
      path: z.string({ error: 'must be a string' }).min(1).max(512).optional(),
      op: z.string({ error: 'must be a string' }),
      value: z.union([z.string().max(1024), z.number(), z.boolean(), z.null()], { error: 'must be a string, number, boolean or null' }).optional(),
    },
    { error: 'must be an object {source, path?, op, value?}' },
  );

/** The rules of one assertion (its op for its source, path, value); `jsonata` is loaded by then when it is a `json_query` with a path. */
function checkAssertion(a: z.output<typeof AssertionObject>, ctx: z.RefinementCtx): void {
  const ops = ASSERTION_OPS[a.source] as readonly string[];
  if (!ops.includes(a.op)) ctx.addIssue({ code: 'custom', path: ['op'], message: `must be one of ${ops.join(', ')} for source ${a.source}` });
  if (a.source === 'json' && !a.path?.startsWith('$')) ctx.addIssue({ code: 'custom', path: ['path'], message: 'must be a JSONPath starting with $' });
  if (a.source === 'header' && !a.path) ctx.addIssue({ code: 'custom', path: ['path'], message: 'must name the header' });
  if (a.source === 'json_query') {
    const syntax = a.path ? jsonataSyntaxError(a.path) : 'must be a JSONata expression';
    if (syntax) ctx.addIssue({ code: 'custom', path: ['path'], message: syntax });
  }
  if (a.op !== 'exists' && a.value === undefined) ctx.addIssue({ code: 'custom', path: ['value'], message: `is required for op ${a.op}` });
  if (NUMERIC_OPS.has(a.op) && typeof a.value !== 'number') ctx.addIssue({ code: 'custom', path: ['value'], message: `must be a number for op ${a.op}` });
  if (a.op === 'matches') {
    try {
      new RegExp(String(a.value));
    } catch {
      ctx.addIssue({ code: 'custom', path: ['value'], message: 'must be a valid regular expression' });
    }
  }
}

// A json_query expression before `jsonata` is loaded: the rules wait for it (an asynchronous parse awaits the promise; a
// synchronous one throws, so its caller awaits prepareAssertions first), in the same order as once it is loaded.
const Assertion = AssertionObject.superRefine((a, ctx) => (a.source === 'json_query' && a.path && !jsonataFn ? loadJsonata().then(() => checkAssertion(a, ctx)) : checkAssertion(a, ctx)));
export type HttpAssertion = z.infer<typeof Assertion>;

const optionalText = (max: number) =>
  z
    .string({ error: 'must be a string' })
    .max(max, `must be at most ${max} characters`)
    .nullable()
    .transform((v) => v || null);
const httpUrl = z
  .string({ error: 'must be a string' })
  .max(2048, 'must be at most 2048 characters')
  .nullable()
  .transform((v) => v?.trim() || null)
  .refine((v) => v === null || /^https?:\/\/[^/\s]+/i.test(v), 'must be an absolute http:// or https:// URL');
const pem = (what: string) => optionalText(65536).refine((v) => v === null || v.includes('-----BEGIN'), `must be a PEM ${what} (-----BEGIN …)`);

/** Authentication methods of an HTTP check (issue 36; docs/api.md "Check types"). */
export const HTTP_AUTH_METHODS = ['none', 'basic', 'bearer', 'oauth2_client_credentials'] as const;

/** The HTTP options Kuma users rely on (issue 36): TLS, inverted keyword, proxy, mTLS, auth (upside-down is every protocol's: src/protocols/upside-down.ts). */
const optionFields = {
  keyword_absent: z.boolean({ error: 'must be a boolean' }),
  ignore_tls_errors: z.boolean({ error: 'must be a boolean' }),
  proxy_url: httpUrl,
  tls_client_cert: pem('certificate'),
  tls_client_key: pem('private key'),
  auth_method: z.enum(HTTP_AUTH_METHODS, { error: `must be one of ${HTTP_AUTH_METHODS.join(', ')}` }),
  auth_username: optionalText(256),
  auth_password: optionalText(1024),
  auth_token: optionalText(4096),
  oauth2_token_url: httpUrl,
  oauth2_client_id: optionalText(512),
  oauth2_client_secret: optionalText(1024),
  oauth2_scope: optionalText(1024),
};
const OPTION_DEFAULTS = {
  keyword_absent: false,
  ignore_tls_errors: false,
  proxy_url: null as string | null,
  tls_client_cert: null as string | null,
  tls_client_key: null as string | null,
  auth_method: 'none' as (typeof HTTP_AUTH_METHODS)[number],
  auth_username: null as string | null,
  auth_password: null as string | null,
  auth_token: null as string | null,
  oauth2_token_url: null as string | null,
  oauth2_client_id: null as string | null,
  oauth2_client_secret: null as string | null,
  oauth2_scope: null as string | null,
};

/** Cross-field rules of the options. @throws AppError 400 naming the field */
function validateOptions(s: typeof OPTION_DEFAULTS & { required_keyword: string | null }): void {
  if (s.keyword_absent && s.required_keyword === null) throw invalid('required_keyword', 'is required when keyword_absent is true (the keyword that must not appear)');
  if ((s.tls_client_cert === null) !== (s.tls_client_key === null)) throw invalid(s.tls_client_cert === null ? 'tls_client_cert' : 'tls_client_key', 'client certificates need both tls_client_cert and tls_client_key');
  if (s.auth_method === 'basic' && s.auth_username === null) throw invalid('auth_username', 'is required when auth_method is basic');
  if (s.auth_method === 'bearer' && s.auth_token === null) throw invalid('auth_token', 'is required when auth_method is bearer');
  if (s.auth_method === 'oauth2_client_credentials') {
    for (const f of ['oauth2_token_url', 'oauth2_client_id', 'oauth2_client_secret'] as const) if (s[f] === null) throw invalid(f, 'is required when auth_method is oauth2_client_credentials');
  }
}

const fields = {
  ...SEED_FIELDS,
  ...optionFields,
  assertions: z.array(Assertion, { error: 'must be an array of assertions' }).max(20, 'must have at most 20 assertions'),
  degraded_after_ms: z.number({ error: 'must be a number of milliseconds' }).int('must be whole milliseconds').min(1, 'must be at least 1 ms').max(60_000, 'must be at most 60000 ms').nullable(),
  tls_expiry_days: TLS_EXPIRY_FIELD,
};

/**
 * The http protocol: API.md's fields plus assertions, a degraded threshold, HTTPS certificate expiry alerts and
 * the options of issue 36 (shown only when not at their defaults, so API.md clients see what they expect).
 */
export const http = {
  fields,
  defaults: { ...SEED_DEFAULTS, ...OPTION_DEFAULTS, assertions: [] as HttpAssertion[], degraded_after_ms: null as number | null, tls_expiry_days: null as number[] | null },
  secrets: { ...SEED_SECRETS, proxy_url: 'url_password', tls_client_key: 'value', auth_password: 'value', auth_token: 'value', oauth2_client_secret: 'value' },
  urlMeaning: 'an absolute http:// or https:// URL',
  label: 'HTTP(S)',
  target: (url) => urlTarget(url, ['http:', 'https:'], 'an absolute http:// or https:// URL'),
  validate(s) {
    validateSeed(s);
    validateOptions(s);
  },
  // The API.md response keeps exactly its fields: the additions appear only when set.
  show: ({ assertions, degraded_after_ms, tls_expiry_days, ...rest }) => ({
    ...Object.fromEntries(Object.entries(rest).filter(([k, v]) => !(k in OPTION_DEFAULTS) || v !== OPTION_DEFAULTS[k as keyof typeof OPTION_DEFAULTS])),
    ...(assertions.length ? { assertions } : {}),
    ...(degraded_after_ms !== null ? { degraded_after_ms } : {}),
    ...(tls_expiry_days !== null ? { tls_expiry_days } : {}),
  }),
  loadProbe: async () => (await import('./probe.ts')).httpProbe,
} satisfies ProtocolDefinition<typeof fields>;
