import { z } from 'zod';
import { invalid } from '../lib/errors.ts';

/**
 * The monitor fields API.md §2.2 gives every monitor besides the common ones. The seed's three
 * protocols (http, port, icmp) all take them, as API.md has it (port and icmp store and show them,
 * they do not use them), so a client written against API.md sees exactly the fields it expects.
 */

/** HTTP methods a monitor may use (API.md §2.1). */
export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'HEAD', 'DELETE', 'PATCH', 'OPTIONS'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

const oneOf = (values: readonly (string | number)[]) => `must be one of ${values.join(', ')}`;
const STATUS_ITEM = '(?:[1-5]\\d\\d|[1-5]xx)(?:-(?:[1-5]\\d\\d|[1-5]xx))?';
/** One code, class or range, or a comma-separated list of them (issue 36: Kuma's accepted codes `200-299,301,501`). */
const STATUS_PATTERN = new RegExp(`^${STATUS_ITEM}(?:\\s*,\\s*${STATUS_ITEM}){0,19}$`);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** RFC 9110 field-value: VCHAR, SP, HTAB and obs-text; what undici sends (it refuses anything else at every check). */
const HEADER_VALUE = /^[\t\x20-\x7E\x80-\xFF]*$/;

/** The API.md §2.2 fields; `expected_status_code` takes a number or a string and is stored as a string (CONTRACT.md). */
export const SEED_FIELDS = {
  http_method: z.enum(HTTP_METHODS, { error: oneOf(HTTP_METHODS) }),
  expected_status_code: z
    .union([z.string(), z.number().int()], { error: 'must be a status code such as 200, 2xx or 1xx-3xx' })
    .refine((v) => STATUS_PATTERN.test(String(v).trim()), 'must be a status code such as 200, 2xx, 200-299 or 1xx-3xx, or a comma-separated list of them (200-299,301,501)')
    .transform((v) => String(v).trim().replace(/\s*,\s*/g, ',')),
  required_keyword: z
    .string({ error: 'must be a string' })
    .max(1024, 'must be at most 1024 characters')
    .nullable()
    .transform((v) => v || null),
  follow_redirects: z.boolean({ error: 'must be a boolean' }),
  request_body: z.string({ error: 'must be a string' }).max(65536, 'must be at most 65536 characters').nullable(),
  request_headers: z
    .array(
      z.object(
        {
          name: z.string({ error: 'must be a string' }).max(256, 'must be at most 256 characters').regex(HEADER_NAME, 'must be a valid HTTP header name'),
          value: z
            .string({ error: 'must be a string' })
            .max(8192, 'must be at most 8192 characters')
            .refine((v) => !/[\r\n\0]/.test(v), 'must not contain line breaks')
            .regex(HEADER_VALUE, 'must be visible ASCII, spaces, tabs or obs-text (U+0080–U+00FF) only (RFC 9110 field-value)'),
        },
        { error: 'must be an object {name, value}' },
      ),
      { error: 'must be an array of {name, value}' },
    )
    .max(50, 'must have at most 50 headers')
    .nullable()
    .transform((v) => v ?? []),
};

/** The secret API.md fields: every request header value (an `Authorization`, an API key) is masked on reads. */
export const SEED_SECRETS = { request_headers: 'header_values' } as const;

/** Defaults of the API.md fields (API.md §2.2). */
export const SEED_DEFAULTS = {
  http_method: 'GET' as HttpMethod,
  expected_status_code: '2xx',
  required_keyword: null as string | null,
  follow_redirects: true,
  request_body: null as string | null,
  request_headers: [] as Array<{ name: string; value: string }>,
};

/** The cross-field rule of the API.md fields. @throws AppError 400 */
export function validateSeed(s: { expected_status_code: string }): void {
  for (const range of parseExpectedStatuses(s.expected_status_code)) {
    if (range.min > range.max) throw invalid('expected_status_code', 'range must go from low to high, e.g. 1xx-3xx');
  }
}

/** Inclusive range of accepted HTTP status codes. */
export interface StatusRange {
  min: number;
  max: number;
}

/**
 * `200` → 200–200, `2xx` → 200–299, `1xx-3xx` → 100–399, `200-299` → 200–299 (API.md §2.1).
 * The input is assumed to match the body pattern.
 */
export function parseExpectedStatus(pattern: string): StatusRange {
  const [a, b = a] = pattern.split('-') as [string, string?];
  const low = (p: string) => (p.endsWith('xx') ? Number(p[0]) * 100 : Number(p));
  const high = (p: string) => (p.endsWith('xx') ? Number(p[0]) * 100 + 99 : Number(p));
  return { min: low(a), max: high(b) };
}

/**
 * A comma-separated list of patterns (`200-299,301,501`, issue 36) as its ranges, one per item
 * ({@link parseExpectedStatus}); a single pattern is a list of one.
 */
export function parseExpectedStatuses(pattern: string): StatusRange[] {
  return pattern.split(',').map((p) => parseExpectedStatus(p.trim()));
}

/** Parsed patterns: a monitor's pattern is parsed once, not on every check (few distinct patterns exist; bounded anyway). */
const parsedPatterns = new Map<string, StatusRange[]>();

/** True when `status` falls inside one of the expected pattern's ranges. */
export function statusMatches(pattern: string, status: number): boolean {
  let r = parsedPatterns.get(pattern);
  if (r === undefined) {
    if (parsedPatterns.size >= 1024) parsedPatterns.clear();
    parsedPatterns.set(pattern, (r = parseExpectedStatuses(pattern)));
  }
  return r.some((x) => status >= x.min && status <= x.max);
}
