import { randomBytes } from 'node:crypto';

/**
 * Identifier prefixes of API.md §2 (plus `ep_` for escalation policies and `int_` for integrations (issue 32), `sched_` for on-call schedules and `ovr_` for their overrides (issue 34), CONTRACT.md "Identifiers").
 */
export const ID_PREFIX = {
  monitor: 'mon_',
  component: 'comp_',
  healthcheck: 'tok_',
  healthcheckPublic: 'hc_',
  incident: 'inci_',
  incidentUpdate: 'upd_',
  outage: 'outage_',
  maintenance: 'mw_',
  statuspage: 'sp_',
  sso: 'sso_',
  user: 'user_',
  escalationPolicy: 'ep_',
  integration: 'int_',
  subscriber: 'sub_',
  probe: 'prb_',
  onCallSchedule: 'sched_',
  onCallOverride: 'ovr_',
  tag: 'tag_',
  /** A person's contact method (issue 34 point 1). */
  contactMethod: 'cm_',
} as const;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * `length` base62 characters from the CSPRNG, without modulo bias (bytes ≥ 248 are rejected).
 * 22 characters carry ~131 bits of randomness.
 */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < 248) out += BASE62[b % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** A new id: `<prefix><22 base62 chars>` (CONTRACT.md "Identifiers and time"). */
export function newId(prefix: (typeof ID_PREFIX)[keyof typeof ID_PREFIX]): string {
  return prefix + randomBase62(22);
}

/** True when `id` has the given prefix and 22 base62 characters after it. */
export function isId(id: string, prefix: string): boolean {
  return id.startsWith(prefix) && /^[0-9A-Za-z]{22}$/.test(id.slice(prefix.length));
}
