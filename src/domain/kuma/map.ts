import { MIN_GRACE_S, type HealthcheckBodyInput } from '../healthcheck.ts';
import { ALERTS_WAIT_MIN, CHECK_FREQUENCIES_S, HTTP_METHODS, MonitorBody, PROTOCOLS, type MonitorBodyInput } from '../monitor.ts';
import type { KumaMaintenance, KumaMonitor } from './types.ts';
import { mapKumaCheckType } from './check-types.ts';
import { kumaHttpOptions } from './http-options.ts';
import { jsonataSyntaxError, provideJsonata } from '../../protocols/http/index.ts';
import { MAX_TAGS_PER_MONITOR, formatTagRef, parseTagRef } from '../tags.ts';
import jsonata from 'jsonata';

// Kuma's JSONata expressions are checked as they are mapped (synchronously: `pharos import kuma` maps
// and writes in one transaction), so this module, reached only by that command (src/core/import-kuma.ts)
// and never by `pharos serve`, loads `jsonata` with it (issue 38 point 1).
provideJsonata(jsonata);

/**
 * Kuma → Pharos mapping rules, pure. Each result carries `notes`: what changed on the way (an
 * interval rounded to Pharos's steps, a header dropped), so the import report says it per monitor.
 */

/** What became of one Kuma monitor. */
export type MonitorMapping =
  | { kind: 'monitor'; body: MonitorBodyInput; notes: string[] }
  | { kind: 'healthcheck'; body: HealthcheckBodyInput; notes: string[] }
  | { kind: 'skipped'; reason: string };

/** What the running Pharos understands, read at run time (protocols are added by other work). */
export interface PharosCapabilities {
  protocols: readonly string[];
  /** Keys of the monitor body schema (unknown keys would be dropped silently, so they are checked). */
  monitorFields: ReadonlySet<string>;
}

/** The capabilities of this build: its protocol list and monitor body fields. */
export function currentCapabilities(): PharosCapabilities {
  return { protocols: PROTOCOLS, monitorFields: new Set(Object.keys(MonitorBody.shape)) };
}

/** The allowed value nearest to `v` (ties go up). */
function nearest(allowed: readonly number[], v: number): number {
  return allowed.reduce((best, a) => (Math.abs(a - v) < Math.abs(best - v) || (Math.abs(a - v) === Math.abs(best - v) && a > best) ? a : best), allowed[0]!);
}

/** The smallest allowed value ≥ `v`, or the largest. */
function atLeast(allowed: readonly number[], v: number): number {
  return allowed.find((a) => a >= v) ?? allowed[allowed.length - 1]!;
}

/** Kuma 2.x json-query operators → the http protocol's `json_query` assertion ops (src/protocols/http); 1.23 had `==` only. */
const KUMA_OPS: Record<string, string> = { '==': 'equals', '!=': 'not_equals', '<': 'lt', '<=': 'lte', '>': 'gt', '>=': 'gte', contains: 'contains' };

/** The fields every monitor shares: schedule, paused, alert delay from retries, timeout, tags, upside-down. */
function common(m: KumaMonitor, notes: string[]): Partial<MonitorBodyInput> {
  const frequency = nearest(CHECK_FREQUENCIES_S, m.intervalSeconds);
  if (frequency !== m.intervalSeconds) notes.push(`interval ${m.intervalSeconds} s → ${frequency} s (Pharos's check frequencies)`);
  // Kuma marks a monitor down after `maxretries` retries `retry_interval` apart; Pharos confirms a
  // failure itself within seconds, so the extra patience becomes the delay before alerting.
  const retrySeconds = m.maxRetries * (m.retryIntervalSeconds || m.intervalSeconds);
  const wait = m.maxRetries > 0 ? atLeast(ALERTS_WAIT_MIN.filter((w) => w >= 0), Math.ceil(retrySeconds / 60)) : 0;
  if (m.maxRetries > 0) notes.push(`${m.maxRetries} retries (${retrySeconds} s) → alerts_wait ${wait} min`);
  const out: Partial<MonitorBodyInput> = { check_frequency: frequency, paused: !m.active, alerts_wait: wait };
  // Upside-down mode is every protocol's in Pharos, as it is every type's in Kuma (issue 36).
  if (m.upsideDown) (out as Record<string, unknown>).upside_down = true;
  if (m.timeoutSeconds !== null) {
    const t = Math.min(60, frequency, Math.max(1, Math.round(m.timeoutSeconds)));
    // Kuma's editor lets a timeout exceed the interval; Pharos refuses that, so it is clamped (issue 36).
    if (t !== m.timeoutSeconds) notes.push(`timeout ${m.timeoutSeconds} s → ${t} s${m.timeoutSeconds > frequency ? ` (not longer than the check frequency, ${frequency} s)` : ''}`);
    out.timeout = t;
  }
  const tags = kumaTagRefs(m, notes);
  // The body is parsed again by the importer (MonitorBody): tags go in as the API writes them.
  if (tags.length > 0) (out as Record<string, unknown>).tags = tags;
  return out;
}

/**
 * Kuma's tags as the API's `name` / `name:value` strings (issue 33 point 5); a tag Pharos refuses
 * (a `:` or `,` in its name, …) is left out with a note, and so is any beyond the 20th.
 */
export function kumaTagRefs(m: Pick<KumaMonitor, 'tags'>, notes: string[]): string[] {
  const out: string[] = [];
  for (const t of m.tags) {
    const ref = parseTagRef(t.value === '' ? t.name : `${t.name}:${t.value}`);
    if ('error' in ref || t.name.includes(':')) notes.push(`tag "${t.name}" left out: ${'error' in ref ? ref.error : 'a tag name cannot hold ":"'}`);
    else if (out.length >= MAX_TAGS_PER_MONITOR) notes.push(`tag "${t.name}" left out: at most ${MAX_TAGS_PER_MONITOR} tags`);
    else out.push(formatTagRef(ref));
  }
  return out;
}

/** Headers (Kuma's JSON object text) as Pharos request headers (auth: {@link kumaHttpOptions}). */
function headers(m: KumaMonitor, notes: string[]): { name: string; value: string }[] {
  const out: { name: string; value: string }[] = [];
  if (m.headers && m.headers.trim() !== '') {
    try {
      const parsed: unknown = JSON.parse(m.headers);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) for (const [name, value] of Object.entries(parsed)) out.push({ name, value: String(value) });
      else notes.push('headers are not a JSON object: dropped');
    } catch {
      notes.push('headers are not valid JSON: dropped');
    }
  }
  return out;
}

/**
 * Maps one monitor. HTTP, keyword and JSON-query monitors → `http`; port → `port`; ping → `icmp`;
 * DNS → `dns` when this Pharos has that protocol; push → a healthcheck with the same period and a
 * grace of the retries' time (at least 60 s); docker, mqtt, smtp and websocket-upgrade → their check
 * types ({@link mapKumaCheckType}); HTTP options (codes, TLS, inverted keyword, auth) by
 * {@link kumaHttpOptions}; upside-down mode, every type's in both, by {@link common}. Anything else is skipped with the reason.
 * @param policyUuid the escalation policy for the monitor's notifications, when it exists
 */
export function mapMonitor(m: KumaMonitor, caps: PharosCapabilities, policyUuid: string | null): MonitorMapping {
  const notes: string[] = [];
  if (m.upsideDown && m.type !== 'push' && !caps.monitorFields.has('upside_down')) return { kind: 'skipped', reason: 'upside-down mode (up when the check fails) needs the upside_down setting, which this Pharos does not have' };
  const policy = policyUuid ? { escalation_policy: policyUuid } : {};
  if (m.type === 'push') {
    const graceS = Math.max(MIN_GRACE_S, m.maxRetries * (m.retryIntervalSeconds || m.intervalSeconds));
    if (graceS === MIN_GRACE_S && m.maxRetries * m.retryIntervalSeconds < MIN_GRACE_S) notes.push(`grace ${m.maxRetries * m.retryIntervalSeconds} s → 60 s (Pharos's minimum)`);
    if (!m.active) notes.push('paused in Kuma: Pharos healthchecks cannot be paused; it is active');
    if (m.upsideDown) notes.push('upside-down mode is not imported: a healthcheck is up while pings arrive');
    notes.push('new ping URL: update the job that pushed to Kuma');
    return { kind: 'healthcheck', body: { name: m.name, period_value: Math.max(1, m.intervalSeconds), period_type: 'seconds', grace_period_value: graceS, grace_period_type: 'seconds', ...policy }, notes };
  }
  if (m.type === 'http' || m.type === 'keyword' || m.type === 'json-query') {
    if (!m.url) return { kind: 'skipped', reason: 'no URL' };
    const body: MonitorBodyInput = { name: m.name, url: m.url, protocol: 'http', ...common(m, notes), ...policy };
    const method = (m.method ?? 'GET').toUpperCase();
    if ((HTTP_METHODS as readonly string[]).includes(method)) body.http_method = method as MonitorBodyInput['http_method'];
    else notes.push(`method ${method} is not supported: GET`);
    body.follow_redirects = m.maxRedirects > 0;
    if (m.body) body.request_body = m.body;
    const opts = kumaHttpOptions(m, headers(m, notes), notes);
    Object.assign(body, opts.fields);
    if (opts.headers.length > 0) body.request_headers = opts.headers;
    if (m.type === 'keyword') body.required_keyword = m.keyword;
    if (m.type === 'json-query') {
      if (!caps.monitorFields.has('assertions')) return { kind: 'skipped', reason: 'JSON query needs response assertions, which this Pharos does not have' };
      const op = KUMA_OPS[m.jsonPathOperator ?? '=='];
      if (!op) return { kind: 'skipped', reason: `JSON query operator "${m.jsonPathOperator}" has no Pharos equivalent` };
      const expected = m.expectedValue ?? '';
      // Ordering ops compare numbers; Kuma keeps the expected value as text.
      const value = op === 'lt' || op === 'gt' || op === 'lte' || op === 'gte' ? Number(expected) : expected;
      if (typeof value === 'number' && !Number.isFinite(value)) return { kind: 'skipped', reason: `JSON query "${m.jsonPathOperator}" needs a number, got "${expected}"` };
      // Kuma's expression is JSONata, evaluated as Kuma does by the json_query assertion (issue 36); no expression = the whole body.
      const expression = m.jsonPath?.trim() || '$';
      const syntax = jsonataSyntaxError(expression);
      if (syntax) return { kind: 'skipped', reason: `JSON query "${expression}" ${syntax}` };
      (body as Record<string, unknown>).assertions = [{ source: 'json_query', path: expression, op, value }];
    }
    return { kind: 'monitor', body, notes };
  }
  if (m.type === 'port') {
    if (!m.hostname || !m.port) return { kind: 'skipped', reason: 'no host or port' };
    return { kind: 'monitor', body: { name: m.name, url: m.hostname, protocol: 'port', port: m.port, ...common(m, notes), ...policy }, notes };
  }
  if (m.type === 'ping') {
    if (!m.hostname) return { kind: 'skipped', reason: 'no host' };
    return { kind: 'monitor', body: { name: m.name, url: m.hostname, protocol: 'icmp', ...common(m, notes), ...policy }, notes };
  }
  if (m.type === 'dns') {
    if (!caps.protocols.includes('dns') || !caps.monitorFields.has('dns_record_type')) return { kind: 'skipped', reason: 'DNS monitors need the dns protocol, which this Pharos does not have' };
    if (!m.hostname) return { kind: 'skipped', reason: 'no name to resolve' };
    const resolver = m.dnsResolveServer ? (m.port && m.port !== 53 ? `${m.dnsResolveServer}:${m.port}` : m.dnsResolveServer) : undefined;
    const body = { name: m.name, url: m.hostname, protocol: 'dns', ...common(m, notes), ...policy, dns_record_type: m.dnsResolveType ?? 'A', ...(resolver ? { dns_resolver: resolver } : {}) };
    return { kind: 'monitor', body: body as unknown as MonitorBodyInput, notes };
  }
  if ((m.type === 'postgres' || m.type === 'mysql' || m.type === 'redis') && caps.protocols.includes(m.type) && m.databaseConnectionString) {
    return { kind: 'monitor', body: { name: m.name, url: m.databaseConnectionString, protocol: m.type as MonitorBodyInput['protocol'], ...common(m, notes), ...policy }, notes };
  }
  const checkType = mapKumaCheckType(m, caps.protocols);
  if (checkType && 'reason' in checkType) return { kind: 'skipped', reason: checkType.reason };
  if (checkType) return { kind: 'monitor', body: { name: m.name, ...checkType.body, ...common(m, checkType.notes), ...policy } as MonitorBodyInput, notes: checkType.notes };
  if (m.type === 'group') return { kind: 'skipped', reason: 'group monitors are status-page structure in Pharos (its children are imported on their own)' };
  return { kind: 'skipped', reason: `monitor type "${m.type}" has no Pharos protocol` };
}

/**
 * A wall time `YYYY-MM-DD HH:MM[:SS]` in IANA zone `tz` → epoch ms (the offset found with Intl,
 * corrected once for a DST change between the guess and the answer).
 */
export function wallTimeToEpoch(wall: string, tz: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?/.exec(wall);
  if (!m) return null;
  const asUtc = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +(m[6] ?? 0));
  const offset = (at: number) => {
    const parts = Object.fromEntries(new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' }).formatToParts(at).map((p) => [p.type, p.value]));
    return Date.UTC(+parts.year!, +parts.month! - 1, +parts.day!, +parts.hour!, +parts.minute!, +parts.second!) - at;
  };
  try {
    let t = asUtc - offset(asUtc);
    t = asUtc - offset(t);
    return t;
  } catch {
    return null;
  }
}

/** What became of one maintenance window: fixed-time windows map; recurring, cron and manual ones do not. */
export type MaintenanceMapping = { kind: 'window'; startAt: number; endAt: number; notes: string[] } | { kind: 'skipped'; reason: string };

/** Maps a window's times. `SAME_AS_SERVER` or no zone is read as UTC (noted). */
export function mapMaintenanceTimes(w: KumaMaintenance): MaintenanceMapping {
  if (w.strategy !== 'single') return { kind: 'skipped', reason: `strategy "${w.strategy}" (only windows with a fixed start and end are imported)` };
  if (!w.startDate || !w.endDate) return { kind: 'skipped', reason: 'no start or end date' };
  const notes: string[] = [];
  let tz = w.timezone ?? 'UTC';
  if (tz === 'SAME_AS_SERVER' || tz === '') {
    notes.push("Kuma's server time zone is unknown here: times read as UTC");
    tz = 'UTC';
  }
  const startAt = wallTimeToEpoch(w.startDate, tz);
  const endAt = wallTimeToEpoch(w.endDate, tz);
  if (startAt === null || endAt === null) return { kind: 'skipped', reason: `unreadable dates "${w.startDate}" – "${w.endDate}" (${tz})` };
  if (endAt <= startAt) return { kind: 'skipped', reason: 'end is not after start' };
  if (!w.active) return { kind: 'skipped', reason: 'inactive in Kuma' };
  return { kind: 'window', startAt, endAt, notes };
}
