import { z } from 'zod';
import { cronProblem, isIanaTimeZone, nextCronTime } from '../lib/cron.ts';
import { invalid } from '../lib/errors.ts';
import { resolvePolicyRef } from './escalation.ts';

/** Units of `period_type` and `grace_period_type` (API.md §2.4). */
export const PERIOD_UNITS = ['seconds', 'minutes', 'hours', 'days'] as const;
export type PeriodUnit = (typeof PERIOD_UNITS)[number];

/** Seconds per unit. */
export const UNIT_SECONDS: Record<PeriodUnit, number> = { seconds: 1, minutes: 60, hours: 3600, days: 86_400 };

/** The shortest grace period, seconds (CONTRACT.md "Healthchecks"). */
export const MIN_GRACE_S = 60;
/** The longest period or grace period, seconds (365 days). */
export const MAX_PERIOD_S = 365 * 86_400;
/** POST bodies of pings are stored up to this many bytes; the rest is cut, never refused. */
export const MAX_PING_BODY_BYTES = 10 * 1024;

/** Healthcheck status: `up` until a deadline passes or a failure is signalled, then `down` until a success ping. */
export type HealthcheckStatus = 'up' | 'down';

/** A healthcheck as the core and store see it. Times are UTC epoch ms. */
export interface Healthcheck {
  /** Internal integer id (SQLite rowid), never shown in the API. */
  id: number;
  /** `tok_…`: the secret part of the ping URL and the API id. */
  uuid: string;
  /** `hc_…`: an id that can be shown without giving away the ping URL. */
  publicUuid: string;
  name: string;
  /** Simple mode: both set. Cron mode: both null. */
  periodValue: number | null;
  periodType: PeriodUnit | null;
  /** Cron mode: the expression (5 or 6 fields, see lib/cron.ts); null in simple mode. */
  cron: string | null;
  /** IANA zone the cron expression runs in (`UTC` by default; kept in simple mode too). */
  timezone: string;
  graceValue: number;
  graceType: PeriodUnit;
  escalationPolicyUuid: string | null;
  paused: boolean;
  status: HealthcheckStatus;
  /** The time the current period counts from: the last success ping, creation or resume. */
  clockStartAt: number;
  /** The newest ping of any kind, or null. */
  lastPingAt: number | null;
  /** A start signal not yet followed by a success or fail ping, or null. */
  lastStartAt: number | null;
  /** Pings received since creation: the number `n` of the newest stored ping (internal, not in the API). */
  pingsTotal: number;
  createdAt: number;
  updatedAt: number;
  /**
   * Down with no open outage: a person resolved its outage while it was still down (issue 33 point
   * 11). Its clock restarted at the resolve; the next missed deadline or fail ping opens a new outage
   * (no new flip: it is down already), a success ping sets it up. Derived by the store, never written.
   */
  reopen: boolean;
}

/** What a client controls. */
export type HealthcheckSettings = Pick<Healthcheck, 'name' | 'periodValue' | 'periodType' | 'cron' | 'timezone' | 'graceValue' | 'graceType' | 'escalationPolicyUuid'>;

const oneOf = (values: readonly string[]) => `must be one of ${values.join(', ')}`;
const positiveInt = (what: string) =>
  z.number({ error: `must be a positive integer (${what})` }).int(`must be a positive integer (${what})`).positive(`must be a positive integer (${what})`);

/**
 * Body of POST/PUT /v1/healthchecks and POST /v2/healthchecks (API.md §2.4, CONTRACT.md
 * "Healthchecks"). Cross-field rules (one mode, grace ≥ 60 s, cron and timezone validity) are
 * checked by {@link resolveHealthcheckSettings}, so that each 400 names its field.
 */
export const HealthcheckBody = z.object({
  name: z.string({ error: 'is required and must be a string' }).trim().min(1, 'must not be empty').max(255, 'must be at most 255 characters'),
  // Required on create (checked by resolveHealthcheckSettings, which also takes `grace`).
  grace_period_value: positiveInt('a number of grace_period_type units').optional(),
  grace_period_type: z.enum(PERIOD_UNITS, { error: oneOf(PERIOD_UNITS) }).optional(),
  /** Seconds: the Python SDK's create body (`{name, period, grace}`); read as period_value + `seconds`. */
  period: positiveInt('seconds').optional(),
  /** Seconds: as `period`, for the grace period. */
  grace: positiveInt('seconds').optional(),
  period_value: positiveInt('a number of period_type units').nullable().optional(),
  period_type: z.enum(PERIOD_UNITS, { error: oneOf(PERIOD_UNITS) }).nullable().optional(),
  cron: z.string({ error: 'must be a cron expression string' }).trim().max(200, 'must be at most 200 characters').nullable().optional(),
  timezone: z.string({ error: 'must be an IANA time zone name such as Europe/Berlin' }).trim().max(64, 'must be at most 64 characters').optional(),
  escalation_policy: z.string({ error: 'must be a policy uuid or "none"' }).nullable().optional(),
});

/** Parsed healthcheck body; on update `name` may be left out too (partial PUT). */
export type HealthcheckBodyInput = Omit<z.infer<typeof HealthcheckBody>, 'name'> & Partial<Pick<z.infer<typeof HealthcheckBody>, 'name'>>;

/**
 * Turns a validated body into settings, enforcing the cross-field rules on the merged result. On
 * update, `current` is the stored healthcheck: fields left out keep their values, a body naming
 * neither mode keeps the current mode, naming one mode switches to it.
 * @throws AppError 400 naming the field: both or neither mode (`period_value`/`cron`), a half-given
 *   simple mode, malformed `cron`, unknown `timezone`, `grace_period_value` under 60 s, values over 365 days
 */
export function resolveHealthcheckSettings(
  input: HealthcheckBodyInput,
  current: HealthcheckSettings | null,
  knownPolicy: (uuid: string) => boolean,
): HealthcheckSettings {
  // `period` / `grace` in seconds (the Python SDK's body) stand for value + `seconds` when the unit fields are absent.
  const body = { ...input };
  if (body.period != null && body.period_value == null && body.period_type == null) Object.assign(body, { period_value: body.period, period_type: 'seconds' });
  if (body.grace != null && body.grace_period_value == null && body.grace_period_type == null) Object.assign(body, { grace_period_value: body.grace, grace_period_type: 'seconds' });
  const simple = body.period_value != null || body.period_type != null;
  const cronMode = body.cron != null && body.cron !== '';
  if (simple && cronMode) throw invalid('cron', 'give either period_value + period_type (simple mode) or cron + timezone (cron mode), not both');
  if (!simple && !cronMode && !current) throw invalid('period_value', 'is required: give period_value + period_type (simple mode) or cron + timezone (cron mode)');
  // Partial update: half of simple mode given over a healthcheck already in simple mode takes the other half from it.
  const periodValue = body.period_value ?? (current?.cron === null ? current.periodValue : null);
  const periodType = body.period_type ?? (current?.cron === null ? current.periodType : null);
  if (simple && periodValue == null) throw invalid('period_value', 'is required with period_type');
  if (simple && periodType == null) throw invalid('period_type', 'is required with period_value');
  const name = body.name ?? current?.name;
  if (name === undefined) throw invalid('name', 'is required and must be a string');
  const graceValue = body.grace_period_value ?? current?.graceValue;
  if (graceValue === undefined) throw invalid('grace_period_value', 'is required: a positive integer (a number of grace_period_type units)');
  const graceType = body.grace_period_type ?? current?.graceType;
  if (graceType === undefined) throw invalid('grace_period_type', `must be one of ${PERIOD_UNITS.join(', ')}`);

  const timezone = body.timezone ?? current?.timezone ?? 'UTC';
  if (!isIanaTimeZone(timezone)) throw invalid('timezone', `"${timezone}" is not an IANA time zone name (such as UTC or Europe/Berlin)`);

  let mode: Pick<HealthcheckSettings, 'periodValue' | 'periodType' | 'cron'>;
  if (simple) mode = { periodValue: periodValue!, periodType: periodType!, cron: null };
  else if (cronMode) mode = { periodValue: null, periodType: null, cron: body.cron! };
  else mode = { periodValue: current!.periodValue, periodType: current!.periodType, cron: current!.cron };

  if (mode.cron !== null) {
    const problem = cronProblem(mode.cron, timezone);
    if (problem) throw invalid('cron', `is not a valid cron expression (5 fields, or 6 with seconds first): ${problem}`);
  } else if (mode.periodValue! * UNIT_SECONDS[mode.periodType!] > MAX_PERIOD_S) {
    throw invalid('period_value', 'must be at most 365 days');
  }
  const graceS = graceValue * UNIT_SECONDS[graceType];
  if (graceS < MIN_GRACE_S) throw invalid('grace_period_value', `must be at least ${MIN_GRACE_S} seconds (got ${graceS} s)`);
  if (graceS > MAX_PERIOD_S) throw invalid('grace_period_value', 'must be at most 365 days');

  const escalationPolicyUuid = resolvePolicyRef(body.escalation_policy, current?.escalationPolicyUuid ?? null, knownPolicy);
  return { name, ...mode, timezone, graceValue, graceType, escalationPolicyUuid };
}

/** Period in seconds (simple mode), or null in cron mode. */
export function periodSeconds(hc: Pick<Healthcheck, 'periodValue' | 'periodType'>): number | null {
  return hc.periodValue !== null && hc.periodType !== null ? hc.periodValue * UNIT_SECONDS[hc.periodType] : null;
}

/** Grace period in seconds. */
export function graceSeconds(hc: Pick<Healthcheck, 'graceValue' | 'graceType'>): number {
  return hc.graceValue * UNIT_SECONDS[hc.graceType];
}

/**
 * When the next ping is due (epoch ms): the clock start + period, or the first cron time after the
 * clock start in the healthcheck's zone (CONTRACT.md "Healthchecks"). Null when a cron expression
 * never matches again.
 */
export function dueAt(hc: Pick<Healthcheck, 'periodValue' | 'periodType' | 'cron' | 'timezone' | 'clockStartAt'>): number | null {
  const p = periodSeconds(hc);
  if (p !== null) return hc.clockStartAt + p * 1000;
  return nextCronTime(hc.cron!, hc.timezone, hc.clockStartAt);
}

/**
 * The deadline (epoch ms): due + grace. The healthcheck is late when now > deadline (strictly), so
 * a ping at exactly the deadline is in time. Null when nothing is ever due.
 */
export function deadlineAt(hc: Pick<Healthcheck, 'periodValue' | 'periodType' | 'cron' | 'timezone' | 'clockStartAt' | 'graceValue' | 'graceType'>): number | null {
  const due = dueAt(hc);
  return due === null ? null : due + graceSeconds(hc) * 1000;
}

/**
 * True when a deadline watch applies: active and up, or down with its outage resolved by a person
 * ({@link Healthcheck.reopen}); a down healthcheck with an open outage waits for a success ping.
 */
export function isWatched(hc: Pick<Healthcheck, 'paused' | 'status'> & { reopen?: boolean }): boolean {
  return !hc.paused && (hc.status === 'up' || hc.reopen === true);
}

/** `1 minute`, `2 minutes`: a count of a period unit (`minutes`, `hours`…) in English grammar. */
const units = (n: number, unit: string) => `${n} ${n === 1 ? unit.replace(/s$/, '') : unit}`;

/** Human text for the outage of a missed deadline, e.g. `No ping within 10 seconds + 1 minute grace …`. */
export function lateDescription(hc: Healthcheck): string {
  const every = hc.cron !== null ? `cron "${hc.cron}" (${hc.timezone})` : units(hc.periodValue!, hc.periodType!);
  const last = hc.lastPingAt !== null ? `last ping ${new Date(hc.lastPingAt).toISOString()}` : 'no ping yet';
  return `No ping within ${every} + ${units(hc.graceValue, hc.graceType)} grace (${last})`;
}

/** `<public_url>/ping/<tok_uuid>` (CONTRACT.md "Process, configuration, CLI": `{ping_base_url}` is `<public_url>/ping`). */
export function pingUrl(publicUrl: string, uuid: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/ping/${uuid}`;
}
