import type { Config } from '../config/schema.ts';
import { escalationOfSend, renderAlert } from '../domain/alert.ts';
import { followsAcknowledgements, type ChannelType } from '../domain/channels/index.ts';
import { sendChannels, sendDueAt, stepOfSend, type PolicyTiming } from '../domain/escalation.ts';
import { policyTargets, type EscalationPolicy } from '../domain/escalation-policy.ts';
import { ID_PREFIX } from '../domain/ids.ts';
import type { OutageRecord } from '../domain/outage.ts';
import type { Store } from '../store/index.ts';
import { outageSubject } from '../domain/outage.ts';

/**
 * How escalation bookkeeping asks whether a send is held (maintenance windows, the flood guard):
 * `opened` sees every new outage before its first send is decided; `holds` is asked before each send,
 * and a held send is recorded on the timeline but queues nothing. Inside a procedure this is
 * {@link procedureGate}: the in-memory gates' word as data plus the maintenance windows in the store.
 */
export interface AlertGate {
  opened?(outage: OutageRecord, now: number): void;
  holds(outage: OutageRecord, now: number): boolean;
}

/**
 * A rule held in the memory of the main thread (the flood guard), registered with `core.addAlertGate`.
 * Procedures run where it does not live, so they get its word as data ({@link GateSnapshot}, from
 * `holding`) and report the sends they held back on it (`heldSend`). `opened` is told of each new
 * monitor outage on the main thread (core/checks.ts, before its flush). Maintenance windows are not one
 * of these: they are data, read in the procedure's own transaction ({@link maintenanceHolds}).
 */
export interface MemoryGate {
  opened?(outage: OutageRecord, now: number): void;
  /** Whether this gate holds the sends of outage `uuid` now, with no side effect (asked before a procedure). */
  holding(uuid: string): boolean;
  /** A procedure held a send of `uuid` on this gate's word (`holding` was true): counted (metrics). */
  heldSend?(uuid: string): void;
}

/**
 * A stored policy (store.escalationPolicies, issue 32) in the terms of the timing maths
 * (domain/escalation.ts): each step's integration targets are its channels, by uuid (`int_…`: what
 * outbox rows name from now on). `user` and `schedule` targets are not sent to until the on-call issue.
 * Repeats: `repeatEveryMinutes` null → none; `repeatCount` caps how many, 0 → no cap (config.yaml's
 * `repeat_every_minutes`, which repeats until the outage is acknowledged or resolved).
 */
export interface TimedPolicy extends PolicyTiming {
  uuid: string;
  name: string;
  /** `people`: the step also targets users or schedules (its send stores a page request, issue 34 point 3). */
  steps: Array<{ after_minutes: number; channels: string[]; people?: boolean }>;
}

/** {@link TimedPolicy} of a stored policy. */
export function timedPolicy(p: EscalationPolicy): TimedPolicy {
  return {
    uuid: p.uuid,
    name: p.name,
    steps: p.steps.map((s) => ({ after_minutes: s.delayMinutes, channels: policyTargets({ steps: [s] }, 'integration'), people: s.targets.some((t) => t.type !== 'integration') })),
    repeat_every_minutes: p.repeatEveryMinutes ?? undefined,
    repeat_count: p.repeatCount > 0 ? p.repeatCount : undefined,
    repeat_policy: p.policyRepeats ? p.policyRepeats : undefined,
  };
}

/**
 * What escalation bookkeeping needs of the configuration, as plain data (a procedure's argument):
 * the console's base URL for links. Policies and integrations are not in it: they are read from the
 * store in the procedure's own transaction, at the time of use (issue 32: a change works at once, on
 * every instance), with {@link policyIn} and {@link integrationOf}.
 */
export interface EscalationSettings {
  /** `public_url` without trailing slashes. */
  baseUrl: string;
}

/** The gates' word on outages as a procedure carries it: the uuids the in-memory gates hold now. */
export interface GateSnapshot {
  held: string[];
}

/** {@link EscalationSettings} of a configuration. */
export function escalationSettings(config: Pick<Config, 'public_url'>): EscalationSettings {
  return { baseUrl: config.public_url.replace(/\/+$/, '') };
}

/** What one transaction has read of policies and integrations (a run opening many outages reads each once). */
interface TxReads {
  policies: Map<string, TimedPolicy | null>;
  integrations: Map<string, { name: string; kind: ChannelType } | null>;
}

// Keyed by the transaction-scoped store: store.tx makes a new one per transaction (store/tx-scope.ts),
// so what is kept here lives exactly as long as one procedure run, and a later run reads afresh.
const readsOf = new WeakMap<Store, TxReads>();
function txReads(tx: Store): TxReads {
  let r = readsOf.get(tx);
  if (!r) readsOf.set(tx, (r = { policies: new Map(), integrations: new Map() }));
  return r;
}

/** The stored policy `uuid` names (read once per transaction), or undefined. */
export function policyIn(tx: Store, uuid: string | null): TimedPolicy | undefined {
  if (!uuid) return undefined;
  const reads = txReads(tx).policies;
  if (!reads.has(uuid)) {
    const p = tx.escalationPolicies.get(uuid);
    reads.set(uuid, p ? timedPolicy(p) : null);
  }
  return reads.get(uuid) ?? undefined;
}

/**
 * The integration an outbox row's `channel` names (read once per transaction): an `int_…` uuid, or a
 * config.yaml channel name of a row written before issue 32 (found by name among the provisioned
 * integrations). Undefined when none (deleted).
 */
export function integrationOf(tx: Store, channel: string): { name: string; kind: ChannelType } | undefined {
  const reads = txReads(tx).integrations;
  if (!reads.has(channel)) {
    const i = channel.startsWith(ID_PREFIX.integration) ? tx.integrations.get(channel) : tx.integrations.getByName(channel);
    reads.set(channel, i ? { name: i.name, kind: i.kind } : null);
  }
  return reads.get(channel) ?? undefined;
}

/** True when an ongoing maintenance window covers the outage's monitor at `now` (store-based rule of the maintenance gate). */
export function maintenanceHolds(store: Store, o: OutageRecord, now: number): boolean {
  return o.monitorId !== null && store.maintenance.activeForMonitor(o.monitorId, now);
}

/**
 * Monitor dependencies (issue 36; Nagios' host parents): why the sends of `o` wait now, or null. A
 * parent holds them while it is down: its outage is open, or its newest check failed (a failure not
 * confirmed yet: parent and child failing in the same flush, or the child confirmed first). A parent
 * not checked since the child's outage started holds them for at most two of its intervals (its check
 * has not come round yet). A parent that recovered during the child's outage holds them until the
 * child's first check after that recovery (at most two child intervals): a child still down then is
 * down on its own and alerts; one that came back with its parent never does. Paused parents hold
 * nothing. Read in the deciding procedure's transaction.
 * @returns `{reason, retryAt}`: the timeline's words and when to ask again (epoch ms)
 */
export function dependencyHolds(store: Store, o: OutageRecord, now: number): { reason: string; retryAt: number } | null {
  if (o.monitorId === null) return null;
  for (const p of store.monitors.dependencyParents(o.monitorId)) {
    if (p.paused) continue;
    const intervalMs = p.checkFrequencySeconds * 1000;
    const retryAt = now + Math.max(intervalMs, 30_000);
    if (store.outages.openForMonitor(p.id)) return { reason: `suppressed: depends on ${p.name}, which is down`, retryAt };
    const last = store.checks.latestResults(p.id, 1)[0];
    if (last && !last.ok) return { reason: `suppressed: depends on ${p.name}, whose last check failed`, retryAt };
    if ((!last || last.at < o.startAt) && now < o.startAt + 2 * intervalMs) return { reason: `suppressed: depends on ${p.name}, not checked since this outage began`, retryAt: Math.min(retryAt, o.startAt + 2 * intervalMs) };
    if (p.recoveredAt !== null && p.recoveredAt > o.startAt) {
      const own = store.checks.latestResults(o.monitorId, 1)[0];
      const ownMs = (store.monitors.getById(o.monitorId)?.checkFrequencySeconds ?? 30) * 1000;
      const until = p.recoveredAt + 2 * ownMs;
      if ((!own || own.at <= p.recoveredAt) && now < until) return { reason: `suppressed: depends on ${p.name}, which recovered; waiting for this monitor's next check`, retryAt: Math.min(now + ownMs, until) };
    }
  }
  return null;
}

/**
 * The gate of a procedure: the in-memory gates' word (`snap.held`) and the maintenance windows read
 * in the transaction. The uuids it held on the in-memory gates' word are pushed to `heldByGates`
 * (returned by the procedure, reported with the escalation service's `reportHeld`).
 */
export function procedureGate(tx: Store, snap: GateSnapshot, heldByGates: string[]): AlertGate {
  return {
    holds(o, now) {
      if (snap.held.includes(o.uuid)) {
        heldByGates.push(o.uuid);
        return true;
      }
      return maintenanceHolds(tx, o, now);
    },
  };
}

// Links go to the console (issue 16's URLs), which a person can open in a browser. A healthcheck's
// `uuid` is its ping token (a secret: anyone who sees it in a chat could send success pings), so
// alerts name it by its public uuid (`hc_…`) and console page only.
const linkOf = (s: EscalationSettings, o: OutageRecord) => `${s.baseUrl}/outages/${o.uuid}`;
const sourceOf = (s: EscalationSettings, o: OutageRecord) => ({
  ...o,
  monitor: o.healthcheck
    ? { uuid: o.healthcheck.publicUuid, name: o.healthcheck.name, url: `${s.baseUrl}/healthchecks/${o.healthcheck.publicUuid}`, protocol: 'healthcheck' }
    : outageSubject(o, () => ''),
});

/**
 * Queues send number `sent` of the policy for `o` (unless gated) and moves the schedule on. A scheduled
 * send that a dependency holds ({@link dependencyHolds}) is not taken: it waits (the step is asked again
 * at `retryAt`, the timeline says so once per reason), so the child alerts once its parents are up and it
 * is still down. @returns false when it waited
 */
function send(tx: Store, s: EscalationSettings, gate: AlertGate, o: OutageRecord, policy: TimedPolicy, now: number, type: 'alerted' | 'escalated', userUuid: string | null, note: string | null): boolean {
  const waits = type === 'alerted' ? dependencyHolds(tx, o, now) : null;
  if (waits) {
    tx.outages.setEscalation(o.uuid, o.escalationStartAt ?? now, waits.retryAt, o.alertedSteps);
    const last = tx.outages.events(o.uuid).findLast((e) => e.type === 'alerted');
    if (last?.message !== waits.reason) tx.outages.addEvent(o.uuid, { at: now, type: 'alerted', userUuid: null, message: waits.reason });
    return false;
  }
  const sent = o.alertedSteps;
  const channels = sendChannels(policy, sent);
  const held = gate.holds(o, now);
  if (!held) {
    const escalation = escalationOfSend({ uuid: policy.uuid, name: policy.name, totalSteps: policy.steps.length }, sent);
    const message = JSON.stringify(renderAlert('alert', sourceOf(s, o), escalation, linkOf(s, o), now));
    for (const channel of channels) tx.alerts.insert({ outageUuid: o.uuid, channel, kind: 'alert', step: sent + 1, message, createdAt: now, dueAt: now });
    // The step's people are paged after commit (alerting/pager.ts); the request makes that survive a crash.
    if (policy.steps[stepOfSend(policy, sent).step - 1]?.people) tx.people.insertPageRequest(o.uuid, sent + 1, now);
  }
  const start = o.escalationStartAt ?? now;
  const next = o.acknowledgedAt === null ? sendDueAt(policy, start, sent + 1) : null;
  tx.outages.setEscalation(o.uuid, start, next, sent + 1);
  // The timeline is read by people: integrations by name (a deleted one by its uuid).
  const names = channels.map((c) => integrationOf(tx, c)?.name ?? c);
  const at = stepOfSend(policy, sent);
  const what = `step ${at.step}${at.repeat > 0 ? ' (repeat)' : at.round > 0 ? ` (round ${at.round + 1})` : ''} to ${names.join(', ') || 'no channels'}${held ? ' held: alerts are suppressed' : ''}`;
  tx.outages.addEvent(o.uuid, { at: now, type, userUuid, message: note ? `${note} (${what})` : what });
  return true;
}

/**
 * A new outage (in its opening transaction): timeline entry, and the escalation schedule — step 1 at
 * now + `alertsWaitMinutes` + its `after_minutes`, queued in this same transaction when that is now.
 * No policy or `alertsWaitMinutes` −1 → never alerted.
 * @returns true when the outage's row changed (escalation schedule set): re-read it for its event
 */
export function escalationOpened(tx: Store, s: EscalationSettings, gate: AlertGate, o: OutageRecord, alertsWaitMinutes: number, now: number): boolean {
  tx.outages.addEvent(o.uuid, { at: now, type: 'opened', userUuid: o.reportedBy, message: o.description });
  gate.opened?.(o, now);
  const policy = policyIn(tx, o.escalationPolicyUuid);
  if (!policy || alertsWaitMinutes < 0) return false;
  const start = now + alertsWaitMinutes * 60_000;
  const first = sendDueAt(policy, start, 0)!;
  tx.outages.setEscalation(o.uuid, start, first, 0);
  if (first <= now) send(tx, s, gate, tx.outages.get(o.uuid)!, policy, now, 'alerted', null, null);
  return true;
}

/**
 * When the scheduled send of outage `uuid` is due at `now` (ongoing, unacknowledged), queues it.
 * Call inside a transaction. @returns true when something was queued or skipped as held
 */
export function escalationSendDue(tx: Store, s: EscalationSettings, gate: AlertGate, uuid: string, now: number): boolean {
  const o = tx.outages.get(uuid);
  if (!o || o.endAt !== null || o.acknowledgedAt !== null || o.nextAlertAt === null || o.nextAlertAt > now) return false;
  const policy = policyIn(tx, o.escalationPolicyUuid);
  if (!policy) {
    tx.outages.setEscalation(o.uuid, o.escalationStartAt, null, o.alertedSteps);
    return false;
  }
  return send(tx, s, gate, o, policy, now, 'alerted', null, null);
}

/**
 * Starts an outage's escalation over from `startAt` (epoch ms; step 1 due at startAt + its
 * `after_minutes`), e.g. when alerts held by the flood guard are released. Call inside a
 * transaction. Outages that were never to alert (no policy, `alerts_wait` −1) stay so.
 */
export function escalationRestart(tx: Store, s: EscalationSettings, uuid: string, startAt: number): void {
  const o = tx.outages.get(uuid);
  const policy = o && policyIn(tx, o.escalationPolicyUuid);
  if (!o || !policy || o.endAt !== null || o.escalationStartAt === null) return;
  tx.outages.setEscalation(uuid, startAt, o.acknowledgedAt === null ? sendDueAt(policy, startAt, 0) : null, 0);
}

/** Sends the next step of `o` now (POST escalate), in a transaction, after {@link hasNextStepIn}. */
export function escalationNow(tx: Store, s: EscalationSettings, gate: AlertGate, o: OutageRecord, now: number, userUuid: string | null, note: string | null): void {
  send(tx, s, gate, o, policyIn(tx, o.escalationPolicyUuid)!, now, 'escalated', userUuid, note);
}

/** True when `o` has a policy with a step not yet sent (repeats do not count); read in `tx`. */
export function hasNextStepIn(tx: Store, o: OutageRecord): boolean {
  const policy = policyIn(tx, o.escalationPolicyUuid);
  return policy !== undefined && o.alertedSteps < policy.steps.length;
}

/**
 * An acknowledged outage (in its acknowledging transaction): an `acknowledge` message to every
 * alerted integration whose kind follows the outage's lifecycle (PagerDuty, Opsgenie, the webhook's
 * `outage.acknowledged`; domain/channels `lifecycle`), decided from the stored integration now; chat
 * kinds get nothing, nor does an integration deleted since.
 */
export function escalationAcknowledged(tx: Store, s: EscalationSettings, o: OutageRecord, now: number): void {
  const channels = tx.alerts.alertedChannels(o.uuid).filter((c) => {
    const i = integrationOf(tx, c);
    return i !== undefined && followsAcknowledgements(i.kind);
  });
  if (channels.length === 0) return;
  const message = JSON.stringify(renderAlert('acknowledge', sourceOf(s, o), null, linkOf(s, o), now));
  for (const channel of channels) tx.alerts.insert({ outageUuid: o.uuid, channel, kind: 'acknowledge', step: null, message, createdAt: now, dueAt: now });
}

/**
 * A resolved outage (in its resolving transaction): no more sends; a recovery message to every
 * channel that was alerted; timeline entry.
 */
export function escalationResolved(tx: Store, s: EscalationSettings, o: OutageRecord, now: number, userUuid: string | null, note: string | null): void {
  tx.outages.setEscalation(o.uuid, o.escalationStartAt, null, o.alertedSteps);
  const channels = tx.alerts.alertedChannels(o.uuid);
  if (channels.length > 0) {
    const message = JSON.stringify(renderAlert('recovery', sourceOf(s, o), null, linkOf(s, o), now));
    for (const channel of channels) tx.alerts.insert({ outageUuid: o.uuid, channel, kind: 'recovery', step: null, message, createdAt: now, dueAt: now });
  }
  tx.outages.addEvent(o.uuid, { at: now, type: 'resolved', userUuid, message: note });
}

/**
 * Escalation bookkeeping, run **inside** the transactions that open, escalate and resolve outages
 * (house rule 3): the escalation schedule, the outbox rows and the timeline entry commit together with
 * the state change, so a crash can neither lose nor invent an alert. Those transactions are procedures
 * (store/async.ts) that call the top-level functions above on their `tx`, with {@link settings} and a
 * {@link snapshot} of the in-memory gates in their arguments; the alerting stepper only sets timers for
 * `next_alert_at` and runs the step when one fires.
 */
export function escalationService(deps: { config: Pick<Config, 'public_url'>; gate: Pick<MemoryGate, 'holding' | 'heldSend'> }) {
  const { gate } = deps;
  const settings = escalationSettings(deps.config);
  return {
    /** The configuration part of escalation as plain data (a procedure's argument). */
    settings,
    /** The in-memory gates' word on the sends of the outages `uuids` now, for a procedure's arguments. */
    snapshot(uuids: readonly string[]): GateSnapshot {
      return { held: uuids.filter((u) => gate.holding(u)) };
    },
    /** Reports the sends a procedure held on the in-memory gates' word (its `heldByGates`). */
    reportHeld(uuids: readonly string[]): void {
      for (const u of uuids) gate.heldSend?.(u);
    },
  };
}

/** The escalation service's interface. */
export type EscalationService = ReturnType<typeof escalationService>;
