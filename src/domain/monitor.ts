import { isIP } from 'node:net';
import { z } from 'zod';
import { invalid } from '../lib/errors.ts';
import { resolvePolicyRef } from './escalation.ts';
import { REGIONS, type Region } from './regions.ts';

/** Monitor protocols (API.md §2.1). */
export const PROTOCOLS = ['http', 'port', 'icmp'] as const;
export type Protocol = (typeof PROTOCOLS)[number];

/** HTTP methods a monitor may use (API.md §2.1). */
export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'HEAD', 'DELETE', 'PATCH', 'OPTIONS'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** Allowed check frequencies in seconds (API.md §8). */
export const CHECK_FREQUENCIES_S = [10, 20, 30, 60, 120, 180, 300, 600, 1800, 3600, 21600, 43200, 86400] as const;

/** Allowed `alerts_wait` values in minutes; -1 disables alerts (API.md §8). */
export const ALERTS_WAIT_MIN = [-1, 0, 1, 2, 3, 5, 10, 30, 60] as const;

/** Monitor status (API.md §3). */
export type MonitorStatus = 'up' | 'down';

/** A request header sent by HTTP monitors. */
export interface RequestHeader {
  name: string;
  value: string;
}

/** A monitor as the core and store see it. Units are in the names (house rule 9). */
export interface Monitor {
  /** Integer id (SQLite rowid); shown as `id` and `sort_order` for the hosted service's clients. */
  id: number;
  uuid: string;
  name: string;
  url: string;
  protocol: Protocol;
  httpMethod: HttpMethod;
  checkFrequencySeconds: number;
  regions: Region[];
  status: MonitorStatus;
  paused: boolean;
  /** `2xx`, `1xx-3xx`, `200-299` or a single code such as `200`. */
  expectedStatusCode: string;
  requiredKeyword: string | null;
  followRedirects: boolean;
  port: number | null;
  sslExpirationDays: number | null;
  alertsWaitMinutes: number;
  escalationPolicyUuid: string | null;
  requestBody: string | null;
  requestHeaders: RequestHeader[];
  timeoutSeconds: number;
  createdAt: number;
  updatedAt: number;
}

/** The settings a client controls: everything of {@link Monitor} but identity, state and timestamps. */
export type MonitorSettings = Omit<Monitor, 'id' | 'uuid' | 'status' | 'sslExpirationDays' | 'createdAt' | 'updatedAt'>;

const oneOf = (values: readonly (string | number)[]) => `must be one of ${values.join(', ')}`;
const STATUS_PATTERN = /^(?:[1-5]\d\d|[1-5]xx)(?:-(?:[1-5]\d\d|[1-5]xx))?$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** RFC 9110 field-value: VCHAR, SP, HTAB and obs-text; what undici sends (it refuses anything else at every check). */
const HEADER_VALUE = /^[\t\x20-\x7E\x80-\xFF]*$/;

/**
 * Body of POST and PUT /v1/monitors (API.md §2.2). Unknown fields are dropped; numbers given as
 * strings are refused, except `expected_status_code` (CONTRACT.md "Errors and validation").
 * Defaults are not applied here: PUT keeps the current value of a field left out.
 */
export const MonitorBody = z.object({
  name: z.string({ error: 'is required and must be a string' }).trim().min(1, 'must not be empty').max(255, 'must be at most 255 characters'),
  url: z.string({ error: 'is required and must be a string' }).trim().min(1, 'must not be empty').max(2048, 'must be at most 2048 characters'),
  protocol: z.enum(PROTOCOLS, { error: oneOf(PROTOCOLS) }).optional(),
  http_method: z.enum(HTTP_METHODS, { error: oneOf(HTTP_METHODS) }).optional(),
  check_frequency: z
    .number({ error: `must be a number, one of ${CHECK_FREQUENCIES_S.join(', ')}` })
    .refine((v) => (CHECK_FREQUENCIES_S as readonly number[]).includes(v), oneOf(CHECK_FREQUENCIES_S))
    .meta({ enum: [...CHECK_FREQUENCIES_S], description: 'seconds' })
    .optional(),
  regions: z
    .array(z.enum(REGIONS, { error: oneOf(REGIONS) }), { error: 'must be an array of region names' })
    .min(1, 'must name at least one region')
    .refine((r) => new Set(r).size === r.length, 'must not repeat a region')
    .optional(),
  expected_status_code: z
    .union([z.string(), z.number().int()], { error: 'must be a status code such as 200, 2xx or 1xx-3xx' })
    .refine((v) => STATUS_PATTERN.test(String(v).trim()), 'must be a status code such as 200, 2xx, 200-299 or 1xx-3xx')
    .optional(),
  required_keyword: z.string({ error: 'must be a string' }).max(1024, 'must be at most 1024 characters').nullable().optional(),
  follow_redirects: z.boolean({ error: 'must be a boolean' }).optional(),
  port: z.number({ error: 'must be an integer from 1 to 65535' }).int('must be an integer from 1 to 65535').min(1, 'must be an integer from 1 to 65535').max(65535, 'must be an integer from 1 to 65535').nullable().optional(),
  paused: z.boolean({ error: 'must be a boolean' }).optional(),
  alerts_wait: z
    .number({ error: `must be a number, one of ${ALERTS_WAIT_MIN.join(', ')}` })
    .refine((v) => (ALERTS_WAIT_MIN as readonly number[]).includes(v), oneOf(ALERTS_WAIT_MIN))
    .meta({ enum: [...ALERTS_WAIT_MIN], description: 'minutes; -1 never alerts' })
    .optional(),
  request_body: z.string({ error: 'must be a string' }).max(65536, 'must be at most 65536 characters').nullable().optional(),
  request_headers: z
    .array(
      z.object({
        name: z.string({ error: 'must be a string' }).max(256, 'must be at most 256 characters').regex(HEADER_NAME, 'must be a valid HTTP header name'),
        value: z
          .string({ error: 'must be a string' })
          .max(8192, 'must be at most 8192 characters')
          .refine((v) => !/[\r\n\0]/.test(v), 'must not contain line breaks')
          .regex(HEADER_VALUE, 'must be visible ASCII, spaces, tabs or obs-text (U+0080–U+00FF) only (RFC 9110 field-value)'),
      }, { error: 'must be an object {name, value}' }),
      { error: 'must be an array of {name, value}' },
    )
    .max(50, 'must have at most 50 headers')
    .nullable()
    .optional(),
  timeout: z.number({ error: 'must be an integer from 1 to 60 (seconds)' }).int('must be an integer from 1 to 60 (seconds)').min(1, 'must be an integer from 1 to 60 (seconds)').max(60, 'must be an integer from 1 to 60 (seconds)').optional(),
  escalation_policy: z.string({ error: 'must be a policy uuid or "none"' }).nullable().optional(),
});

/** Parsed monitor body. */
export type MonitorBodyInput = z.infer<typeof MonitorBody>;

/** Defaults of a new monitor (API.md §2.2, CONTRACT.md "Monitors"). */
export function monitorDefaults(localRegion: Region): Omit<MonitorSettings, 'name' | 'url'> {
  return {
    protocol: 'http',
    httpMethod: 'GET',
    checkFrequencySeconds: 30,
    regions: [localRegion],
    paused: false,
    expectedStatusCode: '2xx',
    requiredKeyword: null,
    followRedirects: true,
    port: null,
    alertsWaitMinutes: 0,
    escalationPolicyUuid: null,
    requestBody: null,
    requestHeaders: [],
    timeoutSeconds: 10,
  };
}

/**
 * Merges a validated body over `base` (defaults on create, the current settings on update) and
 * checks the rules that span fields. Fields left out of the body keep `base`'s value
 * (CONTRACT.md: PUT takes the create body; left-out optional fields keep their current values).
 * @param knownPolicy returns true when an escalation policy uuid exists
 * @throws AppError 400 naming the field and the rule
 */
export function resolveMonitorSettings(
  body: MonitorBodyInput,
  base: Omit<MonitorSettings, 'name' | 'url'>,
  knownPolicy: (uuid: string) => boolean,
): MonitorSettings {
  const escalationPolicyUuid = resolvePolicyRef(body.escalation_policy, base.escalationPolicyUuid, knownPolicy);
  const s: MonitorSettings = {
    name: body.name,
    url: body.url,
    protocol: body.protocol ?? base.protocol,
    httpMethod: body.http_method ?? base.httpMethod,
    checkFrequencySeconds: body.check_frequency ?? base.checkFrequencySeconds,
    regions: body.regions ?? base.regions,
    paused: body.paused ?? base.paused,
    expectedStatusCode: body.expected_status_code !== undefined ? String(body.expected_status_code).trim() : base.expectedStatusCode,
    requiredKeyword: body.required_keyword !== undefined ? body.required_keyword || null : base.requiredKeyword,
    followRedirects: body.follow_redirects ?? base.followRedirects,
    port: body.port !== undefined ? body.port : base.port,
    alertsWaitMinutes: body.alerts_wait ?? base.alertsWaitMinutes,
    escalationPolicyUuid,
    requestBody: body.request_body !== undefined ? body.request_body : base.requestBody,
    requestHeaders: body.request_headers !== undefined ? (body.request_headers ?? []) : base.requestHeaders,
    timeoutSeconds: body.timeout ?? base.timeoutSeconds,
  };
  const range = parseExpectedStatus(s.expectedStatusCode);
  if (range.min > range.max) throw invalid('expected_status_code', 'range must go from low to high, e.g. 1xx-3xx');
  if (s.timeoutSeconds > s.checkFrequencySeconds) {
    throw invalid('timeout', `must not be longer than check_frequency (${s.checkFrequencySeconds} s)`);
  }
  const target = probeTarget(s);
  if (s.protocol === 'port' && target.port === null) throw invalid('port', 'is required for protocol "port" unless the url carries a port');
  return s;
}

/** Where a check goes: for `http` the URL itself; for `port`/`icmp` a host (and a port for `port`). */
export interface ProbeTarget {
  url: string;
  host: string;
  port: number | null;
}

const HOSTNAME = /^(?=.{1,253}$)(?:[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9])?)(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9])?)*\.?$/;

/**
 * Derives the probe target from the settings and validates `url` for the protocol: `http` needs an
 * absolute http(s) URL; `port` and `icmp` take a host name or IP, or a URL whose host is taken
 * (CONTRACT.md "Monitors"). An explicit `port` field wins over a port in the URL.
 * @throws AppError 400 (`url: …`) when the url does not fit the protocol
 */
export function probeTarget(s: Pick<MonitorSettings, 'url' | 'protocol' | 'port'>): ProbeTarget {
  const raw = s.url.trim();
  if (s.protocol === 'http') {
    let u: URL;
    try {
      u = new URL(raw);
    } catch {
      throw invalid('url', 'must be an absolute http:// or https:// URL');
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw invalid('url', 'must be an absolute http:// or https:// URL');
    if (!u.hostname) throw invalid('url', 'must name a host');
    return { url: u.href, host: u.hostname, port: u.port ? Number(u.port) : null };
  }
  let host = raw;
  let urlPort: number | null = null;
  if (raw.includes('://')) {
    let u: URL;
    try {
      u = new URL(raw);
    } catch {
      throw invalid('url', 'must be a host name, an IP address or a URL');
    }
    host = u.hostname;
    urlPort = u.port ? Number(u.port) : null;
  } else if (/^[^:\[\]]+:\d{1,5}$/.test(raw)) {
    const i = raw.lastIndexOf(':');
    host = raw.slice(0, i);
    urlPort = Number(raw.slice(i + 1));
  }
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  if (!host || (isIP(host) === 0 && !HOSTNAME.test(host))) throw invalid('url', 'must be a host name, an IP address or a URL');
  const port = s.port ?? urlPort;
  if (port !== null && (port < 1 || port > 65535)) throw invalid('url', 'port must be from 1 to 65535');
  return { url: raw, host, port };
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

/** True when `status` falls inside the expected pattern. */
export function statusMatches(pattern: string, status: number): boolean {
  const r = parseExpectedStatus(pattern);
  return status >= r.min && status <= r.max;
}
