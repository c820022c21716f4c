import { notFound } from '../lib/errors.ts';
import { ID_PREFIX, newId } from '../domain/ids.ts';
import { deadlineAt, isWatched, lateDescription, resolveHealthcheckSettings, type Healthcheck, type HealthcheckBodyInput, type HealthcheckSettings } from '../domain/healthcheck.ts';
import { applyPing, failDescription, type Ping, type StoredPing } from '../domain/ping.ts';
import type { OutageRecord } from '../domain/outage.ts';
import type { Store } from '../store/index.ts';
import { procedure } from '../store/async.ts';
import { resolvePolicyRef } from '../domain/escalation.ts';
import { healthcheckAuditDiff } from '../domain/audit-views.ts';
import type { AuditActor } from '../domain/audit.ts';
import { recordAudit } from './audit-log.ts';
import { escalationOpened, escalationResolved, procedureGate, type EscalationSettings } from './escalation.ts';

/**
 * The healthchecks' transactions as procedures (store/async.ts, issue 31): they run on this thread
 * (SQLite) or on the store host thread (PostgreSQL), so they get the transaction's store and plain
 * arguments only — the time, the region and the escalation settings come in `args`, and the caller
 * (core/healthchecks.ts) emits the events from what they return, after the commit.
 */

/** What opening or resolving a healthcheck's outage needs besides the store: plain data. */
export interface OutageArgs {
  /** The main probe's region (`probe.region`): where a healthcheck outage is "detected". */
  region: string;
  escalation: EscalationSettings;
  /** Epoch ms: the time of the outage rows' bookkeeping (created_at, timeline entries). */
  now: number;
}

/** By the secret `tok_` uuid, or by the `hc_` public uuid. */
export const findIn = (tx: Store, uuid: string): Healthcheck | undefined =>
  uuid.startsWith(ID_PREFIX.healthcheckPublic) ? tx.healthchecks.getByPublicUuid(uuid) : tx.healthchecks.get(uuid);

/** {@link findIn}, or AppError 404 `healthchecks.not_found`. */
const mustFind = (tx: Store, uuid: string): Healthcheck => {
  const hc = findIn(tx, uuid);
  if (!hc) throw notFound('healthchecks', 'Healthcheck');
  return hc;
};

/**
 * Alert gates never hold a healthcheck's outage (maintenance windows cover monitors, the flood guard
 * counts monitor outages only): a procedure's gate with an empty snapshot decides as the live ones would.
 */
const healthcheckGate = (tx: Store) => procedureGate(tx, { held: [] }, []);

/**
 * Flips to down and opens the healthcheck's outage (inside a transaction); returns the outage.
 * `wasDown`: it was down already (its outage resolved by a person, `reopen`): no second down flip.
 */
function openOutage(tx: Store, hc: Healthcheck, at: number, description: string, a: OutageArgs, wasDown = false): OutageRecord | undefined {
  tx.healthchecks.setState(hc.id, 'down', hc.clockStartAt);
  if (!wasDown) tx.healthchecks.insertFlip(hc.id, at, 'down', description);
  if (tx.outages.openForHealthcheck(hc.id)) return undefined;
  const uuid = newId(ID_PREFIX.outage);
  tx.outages.insert(
    {
      uuid,
      kind: 'healthcheck',
      monitorId: null,
      healthcheckId: hc.id,
      startAt: at,
      statusCode: 0,
      description,
      detectedLocation: a.region,
      confirmedLocations: a.region,
      protocol: 'healthcheck',
      severity: 'minor',
      reportedBy: null,
      escalationPolicyUuid: hc.escalationPolicyUuid,
      summary: null,
    },
    a.now,
  );
  escalationOpened(tx, a.escalation, healthcheckGate(tx), tx.outages.get(uuid)!, 0, a.now);
  return tx.outages.get(uuid)!;
}

/** Flips to up with a restarted clock and resolves the open outage (inside a transaction). */
function closeOutage(tx: Store, hc: Healthcheck, at: number, a: OutageArgs): OutageRecord | undefined {
  tx.healthchecks.setState(hc.id, 'up', at);
  tx.healthchecks.insertFlip(hc.id, at, 'up', null);
  const open = tx.outages.openForHealthcheck(hc.id);
  if (!open) return undefined;
  tx.outages.resolve(open.uuid, at);
  escalationResolved(tx, a.escalation, tx.outages.get(open.uuid)!, a.now, null, null);
  return tx.outages.get(open.uuid)!;
}

/** What committing one ping produced, for the announcement after the commit. */
export interface PingApplied {
  healthcheck: Healthcheck;
  stored: StoredPing;
  opened: OutageRecord | undefined;
  resolved: OutageRecord | undefined;
  healthcheckId: number;
}

/**
 * A batch of pings in which a healthcheck flips (opens or resolves an outage, with escalation rows,
 * in the same transaction): the rows locked in id order first, as the asynchronous path does, so
 * concurrent batches of several instances cannot deadlock; then each ping counted and run through
 * the state machine, and the ping rows written. Unknown tokens give null and write nothing.
 */
export const recordPingsWithFlips = procedure(
  'healthchecks.recordPingsWithFlips',
  (tx: Store, a: { batch: Array<{ token: string; ping: Ping }>; keep: number; outage: OutageArgs }): Array<PingApplied | null> => {
    tx.healthchecks.lockForPings(a.batch.map((p) => p.token));
    const all = a.batch.map(({ token, ping }): PingApplied | null => {
      const hc = tx.healthchecks.get(token);
      if (!hc) return null;
      const effect = applyPing(hc, ping);
      // The count, the new status and clock in one UPDATE; the ping's row is written with the batch's others.
      const { stored, healthcheck } = tx.healthchecks.countPing(hc, ping, effect);
      let opened: OutageRecord | undefined;
      let resolved: OutageRecord | undefined;
      if (effect.flip === 'down') opened = openOutage(tx, healthcheck, ping.at, failDescription(ping), a.outage, hc.status === 'down');
      else if (effect.flip === 'up') resolved = closeOutage(tx, healthcheck, ping.at, a.outage);
      // After a flip it is no longer down without an outage (a later ping of the batch reads it again).
      return { healthcheck: effect.flip ? { ...healthcheck, reopen: false } : healthcheck, stored, opened, resolved, healthcheckId: hc.id };
    });
    tx.healthchecks.insertPings(
      all.filter((r) => r !== null),
      a.keep,
    );
    return all;
  },
);

/**
 * A deadline timer fired: when the healthcheck is watched and `now` is past its deadline (strictly),
 * flips it down and opens an outage that starts at the deadline. With several instances the lease's
 * `epoch` is checked first in the same transaction (issue 31; LeaseLostError, nothing written).
 * @returns the outage opened (if any) and the healthcheck as committed (undefined: deleted)
 */
export const checkDeadlineTx = procedure(
  'healthchecks.checkDeadline',
  (tx: Store, a: { healthcheckId: number; epoch: number | null; outage: OutageArgs }): { opened: OutageRecord | undefined; healthcheck: Healthcheck | undefined } => {
    if (a.epoch !== null) tx.cluster.assertFence(a.epoch);
    const hc = tx.healthchecks.getById(a.healthcheckId);
    let opened: OutageRecord | undefined;
    if (hc && isWatched(hc)) {
      const deadline = deadlineAt(hc);
      if (deadline !== null && a.outage.now > deadline) opened = openOutage(tx, hc, deadline, lateDescription(hc), a.outage, hc.status === 'down');
    }
    return { opened, healthcheck: tx.healthchecks.getById(a.healthcheckId) };
  },
);

/** The audit entry of a healthcheck write: named by its public `hc_` uuid (the `tok_` one is the ping URL's secret). */
const audit = (tx: Store, a: { actor: AuditActor; now: number }, action: 'create' | 'update' | 'delete', before: Healthcheck | null, after: Healthcheck | null) => {
  const h = (after ?? before)!;
  recordAudit(tx, a, { action, resourceType: 'healthcheck', resourceUuid: h.publicUuid, resourceName: h.name, diff: healthcheckAuditDiff(before, after) });
};

/** Creates a healthcheck of resolved `settings` whose clock starts at `now`; `actor` goes to the audit log. */
export const createHealthcheck = procedure('healthchecks.create', (tx: Store, a: { settings: HealthcheckSettings; now: number; actor: AuditActor }): Healthcheck => {
  // Policies are stored objects (issue 32): the reference is checked in this transaction.
  const settings = { ...a.settings, escalationPolicyUuid: resolvePolicyRef(a.settings.escalationPolicyUuid, null, (uuid) => tx.escalationPolicies.get(uuid) !== undefined) };
  const h = tx.healthchecks.insert(newId(ID_PREFIX.healthcheck), newId(ID_PREFIX.healthcheckPublic), settings, a.now);
  audit(tx, a, 'create', null, h);
  return h;
});

/**
 * Replaces a healthcheck's settings (read, merged and written in one transaction).
 * @throws AppError 404 / 400 naming the field
 */
export const updateHealthcheck = procedure('healthchecks.update', (tx: Store, a: { uuid: string; body: HealthcheckBodyInput; now: number; actor: AuditActor }): Healthcheck => {
  const current = mustFind(tx, a.uuid);
  const h = tx.healthchecks.update(current.id, resolveHealthcheckSettings(a.body, current, (uuid) => tx.escalationPolicies.get(uuid) !== undefined), a.now);
  audit(tx, a, 'update', current, h);
  return h;
});

/** Deletes a healthcheck with its pings and outages. @throws AppError 404 */
export const deleteHealthcheck = procedure('healthchecks.delete', (tx: Store, a: { uuid: string; now: number; actor: AuditActor }): Healthcheck => {
  const h = mustFind(tx, a.uuid);
  audit(tx, a, 'delete', h, null);
  tx.healthchecks.delete(h.id);
  return h;
});

/**
 * Pauses (`paused`) or resumes a healthcheck; resuming restarts its clock at `now`. A healthcheck
 * already so changes nothing (and records nothing in the audit log). @throws AppError 404
 */
export const setHealthcheckPaused = procedure('healthchecks.setPaused', (tx: Store, a: { uuid: string; paused: boolean; now: number; actor: AuditActor }): Healthcheck => {
  const h = mustFind(tx, a.uuid);
  if (h.paused !== a.paused) tx.healthchecks.setPaused(h.id, a.paused, a.paused ? h.clockStartAt : a.now, a.now);
  const after = tx.healthchecks.getById(h.id)!;
  audit(tx, a, 'update', h, after);
  return after;
});
