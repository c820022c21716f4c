import { z } from 'zod';
import { SEED_DEFAULTS, SEED_FIELDS, SEED_SECRETS, validateSeed } from '../seed.ts';
import { urlTarget } from '../target.ts';
import type { ProtocolDefinition } from '../types.ts';
import { TLS_EXPIRY_FIELD } from '../expiry.ts';

/**
 * Assertions on an HTTP response (docs/api.md "Check types"). A small, closed syntax:
 * - `{source: "json", path: "$.status", op, value}`: a JSONPath (jsonpath-plus) into the JSON body;
 *   ops `equals`, `not_equals`, `contains`, `matches` (value = a regex source), `exists`, `lt`, `gt`;
 * - `{source: "header", path: "X-Name", op, value}`: ops `exists`, `equals`, `contains`, `matches`;
 * - `{source: "body", op, value}`: ops `contains`, `not_contains`, `matches`;
 * - `{source: "response_time", op: "lt", value: ms}`: the check fails when the response took longer.
 */
export const ASSERTION_OPS = {
  json: ['equals', 'not_equals', 'contains', 'matches', 'exists', 'lt', 'gt'],
  header: ['exists', 'equals', 'contains', 'matches'],
  body: ['contains', 'not_contains', 'matches'],
  response_time: ['lt'],
} as const;

const Assertion = z
  .object(
    {
      source: z.enum(['json', 'header', 'body', 'response_time'], { error: 'must be one of json, header, body, response_time' }),
      path: z.string({ error: 'must be a string' }).min(1).max(512).optional(),
      op: z.string({ error: 'must be a string' }),
      value: z.union([z.string().max(1024), z.number(), z.boolean(), z.null()], { error: 'must be a string, number, boolean or null' }).optional(),
    },
    { error: 'must be an object {source, path?, op, value?}' },
  )
  .superRefine((a, ctx) => {
    const ops = ASSERTION_OPS[a.source] as readonly string[];
    if (!ops.includes(a.op)) ctx.addIssue({ code: 'custom', path: ['op'], message: `must be one of ${ops.join(', ')} for source ${a.source}` });
    if (a.source === 'json' && !a.path?.startsWith('$')) ctx.addIssue({ code: 'custom', path: ['path'], message: 'must be a JSONPath starting with $' });
    if (a.source === 'header' && !a.path) ctx.addIssue({ code: 'custom', path: ['path'], message: 'must name the header' });
    if (a.op !== 'exists' && a.value === undefined) ctx.addIssue({ code: 'custom', path: ['value'], message: `is required for op ${a.op}` });
    if ((a.op === 'lt' || a.op === 'gt') && typeof a.value !== 'number') ctx.addIssue({ code: 'custom', path: ['value'], message: `must be a number for op ${a.op}` });
    if (a.op === 'matches') {
      try {
        new RegExp(String(a.value));
      } catch {
        ctx.addIssue({ code: 'custom', path: ['value'], message: 'must be a valid regular expression' });
      }
    }
  });
export type HttpAssertion = z.infer<typeof Assertion>;

const fields = {
  ...SEED_FIELDS,
  assertions: z.array(Assertion, { error: 'must be an array of assertions' }).max(20, 'must have at most 20 assertions'),
  degraded_after_ms: z.number({ error: 'must be a number of milliseconds' }).int('must be whole milliseconds').min(1, 'must be at least 1 ms').max(60_000, 'must be at most 60000 ms').nullable(),
  tls_expiry_days: TLS_EXPIRY_FIELD,
};

/** The http protocol: API.md's fields plus assertions, a degraded threshold and HTTPS certificate expiry alerts. */
export const http = {
  fields,
  defaults: { ...SEED_DEFAULTS, assertions: [] as HttpAssertion[], degraded_after_ms: null as number | null, tls_expiry_days: null as number[] | null },
  secrets: SEED_SECRETS,
  urlMeaning: 'an absolute http:// or https:// URL',
  label: 'HTTP(S)',
  target: (url) => urlTarget(url, ['http:', 'https:'], 'an absolute http:// or https:// URL'),
  validate(s) {
    validateSeed(s);
  },
  // The API.md response keeps exactly its fields: the additions appear only when set.
  show: ({ assertions, degraded_after_ms, tls_expiry_days, ...seed }) => ({
    ...seed,
    ...(assertions.length ? { assertions } : {}),
    ...(degraded_after_ms !== null ? { degraded_after_ms } : {}),
    ...(tls_expiry_days !== null ? { tls_expiry_days } : {}),
  }),
  loadProbe: async () => (await import('./probe.ts')).httpProbe,
} satisfies ProtocolDefinition<typeof fields>;
