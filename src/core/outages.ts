import type { Config } from '../config/schema.ts';
import type { Clock } from '../lib/clock.ts';
import { AppError, conflict, invalid, notFound } from '../lib/errors.ts';
import { ID_PREFIX, newId } from '../domain/ids.ts';
import { resumeAt } from '../domain/escalation.ts';
import { OUTAGES_PER_PAGE, type OutageEvent, type OutageFilter, type Severity } from '../domain/outage.ts';
import type { Principal } from '../domain/user.ts';
import type { OutageRecord } from '../domain/outage.ts';
import type { Store } from '../store/index.ts';
import type { EscalationService } from './escalation.ts';
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

/**
 * Outage use cases (API.md §4.4, CONTRACT.md "Outages"): reads, manual outages and the action
 * endpoints with their state rules. Every action is one transaction that also records the
 * timeline entry and the escalation change; the event goes out after the commit.
 */
export function outagesService(deps: { store: Store; clock: Clock; bus: EventBus; config: Pick<Config, 'escalation_policies'>; escalation: EscalationService }) {
  const { store, clock, bus, escalation } = deps;
  const mustGet = (uuid: string): OutageRecord => {
    const o = store.outages.get(uuid);
    if (!o) throw notFound('outages', 'Outage');
    return o;
  };
  /** Runs `fn` on the current outage in one transaction and returns the outage as stored after it. */
  const act = (uuid: string, fn: (o: OutageRecord, now: number) => void): OutageRecord =>
    store.tx((tx) => {
      const o = mustGet(uuid);
      fn(o, clock.now());
      return tx.outages.get(uuid)!;
    });

  return {
    /**
     * A page (0-indexed) of outages, newest first, `OUTAGES_PER_PAGE` per page.
     * `total` counts the outages matching the filter; `ongoingCount` counts all ongoing outages.
     */
    list(filter: OutageFilter, page: number): OutagePage {
      const { items, total } = store.outages.list(filter, OUTAGES_PER_PAGE, page * OUTAGES_PER_PAGE);
      return { outages: items, hasNextPage: (page + 1) * OUTAGES_PER_PAGE < total, total, ongoingCount: store.outages.ongoingCount(), page, resultsPerPage: OUTAGES_PER_PAGE };
    },
    /** @throws AppError 404 `outages.not_found` */
    get: mustGet,
    /** The outage's timeline, oldest first. @throws AppError 404 */
    timeline(uuid: string): OutageEvent[] {
      mustGet(uuid);
      return store.outages.events(uuid);
    },
    /**
     * Reports a manual outage (CONTRACT.md: `protocol`/`detectedLocation` "manual", status code 0,
     * no monitor, `reportedBy` the caller); its policy, if any, starts escalating at once.
     * @throws AppError 400 `escalationPolicyUuid` unknown
     */
    create(input: ManualOutageInput, by: Principal): OutageRecord {
      const policyUuid = input.escalationPolicyUuid ?? null;
      if (policyUuid !== null && !escalation.policyOf(policyUuid)) {
        throw invalid('escalationPolicyUuid', `unknown escalation policy "${policyUuid}" (use a uuid from GET /v1/escalation-policies)`);
      }
      const outage = store.tx((tx) => {
        const now = clock.now();
        const uuid = newId(ID_PREFIX.outage);
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
            reportedBy: by.user.uuid,
            escalationPolicyUuid: policyUuid,
            summary: input.summary ?? null,
          },
          now,
        );
        const o = tx.outages.get(uuid)!;
        escalation.opened(o, 0, now);
        return tx.outages.get(uuid)!;
      });
      bus.emit('outage.opened', { outage });
      return outage;
    },
    /** Deletes an outage and its timeline (any state). @throws AppError 404 */
    delete(uuid: string): void {
      const o = store.tx((tx) => {
        const found = mustGet(uuid);
        tx.outages.delete(uuid);
        return found;
      });
      bus.emit('outage.deleted', { uuid, incidentNumber: o.incidentNumber });
    },
    /**
     * Acknowledges: escalation stops. @throws AppError 404; 409 when resolved or already acknowledged
     */
    acknowledge(uuid: string, by: Principal, message: string | null): OutageRecord {
      const outage = act(uuid, (o, now) => {
        if (o.endAt !== null) throw conflict('outages.resolved', 'Outage is resolved; it cannot be acknowledged');
        if (o.acknowledgedAt !== null) throw conflict('outages.already_acknowledged', 'Outage is already acknowledged');
        store.outages.setAcknowledged(uuid, now, by.user.uuid);
        store.outages.setEscalation(uuid, o.escalationStartAt, null, o.alertedSteps);
        store.outages.addEvent(uuid, { at: now, type: 'acknowledged', userUuid: by.user.uuid, message });
        escalation.acknowledged(store.outages.get(uuid)!, now);
      });
      bus.emit('outage.acknowledged', { outage });
      return outage;
    },
    /**
     * Unacknowledges: escalation resumes where it stopped (held sends go out at once).
     * @throws AppError 404; 409 when not acknowledged (or resolved); 403 unless the caller acknowledged it
     */
    unacknowledge(uuid: string, by: Principal, message: string | null): OutageRecord {
      const outage = act(uuid, (o, now) => {
        if (o.acknowledgedAt === null) throw conflict('outages.not_acknowledged', 'Outage is not acknowledged');
        if (o.endAt !== null) throw conflict('outages.resolved', 'Outage is resolved; it cannot be unacknowledged');
        if (o.acknowledgedBy !== by.user.uuid) throw new AppError(403, 'outages.not_acknowledger', 'Only the user who acknowledged the outage can unacknowledge it');
        store.outages.setAcknowledged(uuid, null, null);
        const policy = escalation.policyOf(o.escalationPolicyUuid);
        const next = policy && o.escalationStartAt !== null ? resumeAt(policy, o.escalationStartAt, o.alertedSteps, now) : null;
        store.outages.setEscalation(uuid, o.escalationStartAt, next, o.alertedSteps);
        store.outages.addEvent(uuid, { at: now, type: 'unacknowledged', userUuid: by.user.uuid, message });
      });
      bus.emit('outage.unacknowledged', { outage });
      return outage;
    },
    /**
     * Resolves now: escalation stops and everyone alerted gets a recovery message. The monitor's own
     * status is not changed (its next passing check sets it `up`). @throws AppError 404; 409 when resolved
     */
    resolve(uuid: string, by: Principal, message: string | null): OutageRecord {
      const outage = act(uuid, (o, now) => {
        if (o.endAt !== null) throw conflict('outages.resolved', 'Outage is already resolved');
        store.outages.resolve(uuid, now);
        escalation.resolved(store.outages.get(uuid)!, now, by.user.uuid, message);
      });
      bus.emit('outage.resolved', { outage });
      return outage;
    },
    /**
     * Alerts the next step of the policy now. @throws AppError 404; 409 when resolved, without a
     * policy, or when every step was sent
     */
    escalate(uuid: string, by: Principal, message: string | null): OutageRecord {
      const outage = act(uuid, (o, now) => {
        if (o.endAt !== null) throw conflict('outages.resolved', 'Outage is resolved; it cannot be escalated');
        if (!escalation.policyOf(o.escalationPolicyUuid)) throw conflict('outages.no_policy', 'Outage has no escalation policy');
        if (!escalation.hasNextStep(o)) throw conflict('outages.no_next_step', 'Every step of the escalation policy was already alerted');
        if (o.escalationStartAt === null) store.outages.setEscalation(uuid, now, null, o.alertedSteps);
        escalation.escalateNow(store.outages.get(uuid)!, now, by.user.uuid, message);
      });
      bus.emit('outage.escalated', { outage });
      return outage;
    },
  };
}

/** The outages service's interface. */
export type OutagesService = ReturnType<typeof outagesService>;
