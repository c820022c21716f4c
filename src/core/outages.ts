import type { Config } from '../config/schema.ts';
import type { Clock } from '../lib/clock.ts';
import { AppError, conflict, invalid, notFound } from '../lib/errors.ts';
import { ID_PREFIX, newId } from '../domain/ids.ts';
import { resumeAt } from '../domain/escalation.ts';
import { OUTAGES_PER_PAGE, type OutageEvent, type OutageFilter, type Severity } from '../domain/outage.ts';
import type { Principal } from '../domain/user.ts';
import type { OutageRecord } from '../domain/outage.ts';
import type { Healthcheck } from '../domain/healthcheck.ts';
import { procedure } from '../store/async.ts';
import type { Store } from '../store/index.ts';
import {
  escalationAcknowledged,
  escalationNow,
  escalationOpened,
  escalationResolved,
  hasNextStepIn,
  policyIn,
  procedureGate,
  type EscalationService,
  type EscalationSettings,
  type GateSnapshot,
} from './escalation.ts';
import type { EventBus } from './events.ts';

export type { OutageRecord } from '../domain/outage.ts';

/** One page of outages as GET /v2/outages returns it (API.md §4.4). */
export interface OutagePage {
  outages: OutageRecord[];
  hasNextPage: boolean;
  total: number;
  ongoingCount: number;
  page: number;
  resultsPerPage: number;
}

/** Body of POST /v2/outages, validated at the edge (API.md §2.6). */
export interface ManualOutageInput {
  description: string;
  severity?: Severity | undefined;
  escalationPolicyUuid?: string | null | undefined;
  summary?: string | null | undefined;
}

/** The outage `uuid` in `tx`. @throws AppError 404 `outages.not_found` */
function mustGet(tx: Store, uuid: string): OutageRecord {
  const o = tx.outages.get(uuid);
  if (!o) throw notFound('outages', 'Outage');
  return o;
}

/** What every outage action carries to its procedure. */
interface ActionArgs {
  uuid: string;
  now: number;
  userUuid: string;
  message: string | null;
  esc: EscalationSettings;
}

/** What an outage action answers: the outage as stored after it, and the sends held on the gates' word. */
interface ActionResult {
  outage: OutageRecord;
  heldByGates: string[];
  /** Resolve: the outage's healthcheck, still down, whose clock restarted (to announce: its deadline moved). */
  healthcheck?: Healthcheck | undefined;
}

const readPage = procedure('outages.page', (tx: Store, a: { filter: OutageFilter; page: number }): OutagePage => {
  const { items, total } = tx.outages.list(a.filter, OUTAGES_PER_PAGE, a.page * OUTAGES_PER_PAGE);
  return { outages: items, hasNextPage: (a.page + 1) * OUTAGES_PER_PAGE < total, total, ongoingCount: tx.outages.ongoingCount(), page: a.page, resultsPerPage: OUTAGES_PER_PAGE };
});

/**
 * The channels alerted (or due to be) for each of `uuids`: the outbox's `alert` rows, each named as
 * its integration is now (rows hold the integration's uuid; a deleted one keeps what the row holds).
 */
const readAlerted = procedure('outages.alerted', (tx: Store, a: { uuids: string[] }): Record<string, string[]> =>
  Object.fromEntries(a.uuids.map((u) => [u, [...new Set(tx.alerts.alertedChannels(u).map((c) => tx.integrations.get(c)?.name ?? c))].sort()])),
);

const readTimeline = procedure('outages.timeline', (tx: Store, a: { uuid: string }): OutageEvent[] => {
  mustGet(tx, a.uuid);
  return tx.outages.events(a.uuid);
});

const createManual = procedure('outages.create', (tx: Store, a: { uuid: string; input: ManualOutageInput; userUuid: string; now: number; esc: EscalationSettings; gate: GateSnapshot }): ActionResult => {
  const { uuid, input, now } = a;
  tx.outages.insert(
    {
      uuid,
      kind: 'manual',
      monitorId: null,
      healthcheckId: null,
      startAt: now,
      statusCode: 0,
      description: input.description,
      detectedLocation: 'manual',
      confirmedLocations: '',
      protocol: 'manual',
      severity: input.severity ?? 'minor',
      reportedBy: a.userUuid,
      escalationPolicyUuid: input.escalationPolicyUuid ?? null,
      summary: input.summary ?? null,
    },
    now,
  );
  const heldByGates: string[] = [];
  escalationOpened(tx, a.esc, procedureGate(tx, a.gate, heldByGates), tx.outages.get(uuid)!, 0, now);
  return { outage: tx.outages.get(uuid)!, heldByGates };
});

const deleteOutage = procedure('outages.delete', (tx: Store, a: { uuid: string }): OutageRecord => {
  const found = mustGet(tx, a.uuid);
  tx.outages.delete(a.uuid);
  return found;
});

const acknowledgeOutage = procedure('outages.acknowledge', (tx: Store, a: ActionArgs): ActionResult => {
  const { uuid, now } = a;
  const o = mustGet(tx, uuid);
  if (o.endAt !== null) throw conflict('outages.resolved', 'Outage is resolved; it cannot be acknowledged');
  if (o.acknowledgedAt !== null) throw conflict('outages.already_acknowledged', 'Outage is already acknowledged');
  tx.outages.setAcknowledged(uuid, now, a.userUuid);
  tx.outages.setEscalation(uuid, o.escalationStartAt, null, o.alertedSteps);
  tx.outages.addEvent(uuid, { at: now, type: 'acknowledged', userUuid: a.userUuid, message: a.message });
  escalationAcknowledged(tx, a.esc, tx.outages.get(uuid)!, now);
  return { outage: tx.outages.get(uuid)!, heldByGates: [] };
});

const unacknowledgeOutage = procedure('outages.unacknowledge', (tx: Store, a: ActionArgs): ActionResult => {
  const { uuid, now } = a;
  const o = mustGet(tx, uuid);
  if (o.acknowledgedAt === null) throw conflict('outages.not_acknowledged', 'Outage is not acknowledged');
  if (o.endAt !== null) throw conflict('outages.resolved', 'Outage is resolved; it cannot be unacknowledged');
  if (o.acknowledgedBy !== a.userUuid) throw new AppError(403, 'outages.not_acknowledger', 'Only the user who acknowledged the outage can unacknowledge it');
  tx.outages.setAcknowledged(uuid, null, null);
  const policy = policyIn(tx, o.escalationPolicyUuid);
  const next = policy && o.escalationStartAt !== null ? resumeAt(policy, o.escalationStartAt, o.alertedSteps, now) : null;
  tx.outages.setEscalation(uuid, o.escalationStartAt, next, o.alertedSteps);
  tx.outages.addEvent(uuid, { at: now, type: 'unacknowledged', userUuid: a.userUuid, message: a.message });
  return { outage: tx.outages.get(uuid)!, heldByGates: [] };
});

const resolveOutage = procedure('outages.resolve', (tx: Store, a: ActionArgs): ActionResult => {
  const { uuid, now } = a;
  const o = mustGet(tx, uuid);
  if (o.endAt !== null) throw conflict('outages.resolved', 'Outage is already resolved');
  tx.outages.resolve(uuid, now);
  escalationResolved(tx, a.esc, tx.outages.get(uuid)!, now, a.userUuid, a.message);
  // A healthcheck still down (issue 33 point 11): it stays down, its clock restarts now, and the
  // next missed deadline or fail ping opens a new outage (Healthcheck.reopen).
  const hc = o.healthcheckId !== null ? tx.healthchecks.getById(o.healthcheckId) : undefined;
  if (hc?.status === 'down') tx.healthchecks.setState(hc.id, 'down', now);
  return { outage: tx.outages.get(uuid)!, heldByGates: [], healthcheck: hc?.status === 'down' ? tx.healthchecks.getById(hc.id) : undefined };
});

const escalateOutage = procedure('outages.escalate', (tx: Store, a: ActionArgs & { gate: GateSnapshot }): ActionResult => {
  const { uuid, now } = a;
  const o = mustGet(tx, uuid);
  if (o.endAt !== null) throw conflict('outages.resolved', 'Outage is resolved; it cannot be escalated');
  if (!policyIn(tx, o.escalationPolicyUuid)) throw conflict('outages.no_policy', 'Outage has no escalation policy');
  if (!hasNextStepIn(tx, o)) throw conflict('outages.no_next_step', 'Every step of the escalation policy was already alerted');
  if (o.escalationStartAt === null) tx.outages.setEscalation(uuid, now, null, o.alertedSteps);
  const heldByGates: string[] = [];
  escalationNow(tx, a.esc, procedureGate(tx, a.gate, heldByGates), tx.outages.get(uuid)!, now, a.userUuid, a.message);
  return { outage: tx.outages.get(uuid)!, heldByGates };
});

/**
 * Outage use cases (API.md §4.4, CONTRACT.md "Outages"): reads, manual outages and the action
 * endpoints with their state rules. Every action is one transaction (a procedure, store/async.ts)
 * that also records the timeline entry and the escalation change; the event goes out after the commit.
 */
export function outagesService(deps: { store: Store; clock: Clock; bus: EventBus; config: Pick<Config, 'escalation_policies'>; escalation: EscalationService }) {
  const { store, clock, bus, escalation } = deps;
  const esc = escalation.settings;
  const args = (uuid: string, by: Principal, message: string | null): ActionArgs => ({ uuid, now: clock.now(), userUuid: by.user.uuid, message, esc });
  const after = (r: ActionResult): OutageRecord => {
    escalation.reportHeld(r.heldByGates);
    return r.outage;
  };

  return {
    /**
     * A page (0-indexed) of outages, newest first, `OUTAGES_PER_PAGE` per page.
     * `total` counts the outages matching the filter; `ongoingCount` counts all ongoing outages.
     */
    list: (filter: OutageFilter, page: number): Promise<OutagePage> => store.async.tx(readPage, { filter, page }),
    /** @throws (rejects) AppError 404 `outages.not_found` */
    async get(uuid: string): Promise<OutageRecord> {
      const o = await store.async.outages.get(uuid);
      if (!o) throw notFound('outages', 'Outage');
      return o;
    },
    /**
     * The channels (integration names) each outage alerted, or is due to alert, read in one
     * transaction: `alertedChannels` of the hosted service's outages (issue 35 point 6).
     */
    alertedChannels: (uuids: string[]): Promise<Record<string, string[]>> => (uuids.length === 0 ? Promise.resolve({}) : store.async.tx(readAlerted, { uuids })),
    /** The outage's timeline, oldest first. @throws (rejects) AppError 404 */
    timeline: (uuid: string): Promise<OutageEvent[]> => store.async.tx(readTimeline, { uuid }),
    /**
     * Reports a manual outage (CONTRACT.md: `protocol`/`detectedLocation` "manual", status code 0,
     * no monitor, `reportedBy` the caller); its policy, if any, starts escalating at once.
     * @throws (rejects) AppError 400 `escalationPolicyUuid` unknown
     */
    async create(input: ManualOutageInput, by: Principal): Promise<OutageRecord> {
      const policyUuid = input.escalationPolicyUuid ?? null;
      if (policyUuid !== null && !(await store.async.escalationPolicies.get(policyUuid))) {
        throw invalid('escalationPolicyUuid', `unknown escalation policy "${policyUuid}" (use a uuid from GET /v1/escalation-policies)`);
      }
      const uuid = newId(ID_PREFIX.outage);
      const plain: ManualOutageInput = { description: input.description, severity: input.severity, escalationPolicyUuid: policyUuid, summary: input.summary };
      const outage = after(await store.async.tx(createManual, { uuid, input: plain, userUuid: by.user.uuid, now: clock.now(), esc, gate: escalation.snapshot([uuid]) }));
      bus.emit('outage.opened', { outage });
      return outage;
    },
    /** Deletes an outage and its timeline (any state). @throws (rejects) AppError 404 */
    async delete(uuid: string): Promise<void> {
      const o = await store.async.tx(deleteOutage, { uuid });
      bus.emit('outage.deleted', { uuid, incidentNumber: o.incidentNumber });
    },
    /**
     * Acknowledges: escalation stops. @throws (rejects) AppError 404; 409 when resolved or already acknowledged
     */
    async acknowledge(uuid: string, by: Principal, message: string | null): Promise<OutageRecord> {
      const outage = after(await store.async.tx(acknowledgeOutage, args(uuid, by, message)));
      bus.emit('outage.acknowledged', { outage });
      return outage;
    },
    /**
     * Unacknowledges: escalation resumes where it stopped (held sends go out at once).
     * @throws (rejects) AppError 404; 409 when not acknowledged (or resolved); 403 unless the caller acknowledged it
     */
    async unacknowledge(uuid: string, by: Principal, message: string | null): Promise<OutageRecord> {
      const outage = after(await store.async.tx(unacknowledgeOutage, args(uuid, by, message)));
      bus.emit('outage.unacknowledged', { outage });
      return outage;
    },
    /**
     * Resolves now: escalation stops and everyone alerted gets a recovery message. The monitor's own
     * status is not changed (its next passing check sets it `up`; while it still fails, its next
     * confirmed failure opens a new outage). A healthcheck still down stays down with its clock
     * restarted now: the next missed deadline or fail ping opens a new outage, a success ping sets it up.
     * @throws (rejects) AppError 404; 409 when resolved
     */
    async resolve(uuid: string, by: Principal, message: string | null): Promise<OutageRecord> {
      const r = await store.async.tx(resolveOutage, args(uuid, by, message));
      const outage = after(r);
      bus.emit('outage.resolved', { outage });
      if (r.healthcheck) bus.emit('healthcheck.changed', { healthcheck: r.healthcheck });
      return outage;
    },
    /**
     * Alerts the next step of the policy now. @throws (rejects) AppError 404; 409 when resolved, without a
     * policy, or when every step was sent
     */
    async escalate(uuid: string, by: Principal, message: string | null): Promise<OutageRecord> {
      const outage = after(await store.async.tx(escalateOutage, { ...args(uuid, by, message), gate: escalation.snapshot([uuid]) }));
      bus.emit('outage.escalated', { outage });
      return outage;
    },
  };
}

/** The outages service's interface. */
export type OutagesService = ReturnType<typeof outagesService>;
