import type { Config } from '../config/schema.ts';
import type { Clock } from '../lib/clock.ts';
import { notFound } from '../lib/errors.ts';
import { ID_PREFIX, newId } from '../domain/ids.ts';
import {
  deadlineAt,
  isWatched,
  lateDescription,
  resolveHealthcheckSettings,
  type Healthcheck,
  type HealthcheckBodyInput,
} from '../domain/healthcheck.ts';
import { applyPing, failDescription, type Ping, type StoredPing } from '../domain/ping.ts';
import type { OutageRecord } from '../domain/outage.ts';
import type { Store } from '../store/index.ts';
import type { EscalationService } from './escalation.ts';
import type { EventBus } from './events.ts';
import { pingIngest } from './ping-ingest.ts';

type Deps = {
  store: Store;
  clock: Clock;
  bus: EventBus;
  config: Pick<Config, 'escalation_policies' | 'storage' | 'probe'>;
  escalation: EscalationService;
};

/**
 * Healthcheck use cases (API.md §4.2, CONTRACT.md "Healthchecks"): CRUD, pause/resume, pings and
 * missed deadlines. Every write is one transaction; events go out after the commit. Deadlines are
 * kept by the engine (`healthcheck.changed` events tell it when one moves); it calls
 * {@link checkDeadline} when one passes.
 */
export function healthchecksService(deps: Deps) {
  const { store, clock, bus, config, escalation } = deps;
  const knownPolicy = (uuid: string) => config.escalation_policies.some((p) => p.uuid === uuid);
  /** By the secret `tok_` uuid, or by the `hc_` public uuid. */
  const find = (uuid: string): Healthcheck | undefined =>
    uuid.startsWith(ID_PREFIX.healthcheckPublic) ? store.healthchecks.getByPublicUuid(uuid) : store.healthchecks.get(uuid);
  const mustGet = (uuid: string): Healthcheck => {
    const hc = find(uuid);
    if (!hc) throw notFound('healthchecks', 'Healthcheck');
    return hc;
  };

  /** Flips to down and opens the healthcheck's outage (inside a transaction); returns the outage. */
  const openOutage = (hc: Healthcheck, at: number, description: string): OutageRecord | undefined => {
    store.healthchecks.setState(hc.id, 'down', hc.clockStartAt);
    store.healthchecks.insertFlip(hc.id, at, 'down', description);
    if (store.outages.openForHealthcheck(hc.id)) return undefined;
    const uuid = newId(ID_PREFIX.outage);
    store.outages.insert(
      {
        uuid,
        kind: 'healthcheck',
        monitorId: null,
        healthcheckId: hc.id,
        startAt: at,
        statusCode: 0,
        description,
        detectedLocation: config.probe.region,
        confirmedLocations: config.probe.region,
        protocol: 'healthcheck',
        severity: 'minor',
        reportedBy: null,
        escalationPolicyUuid: hc.escalationPolicyUuid,
        summary: null,
      },
      clock.now(),
    );
    escalation.opened(store.outages.get(uuid)!, 0, clock.now());
    return store.outages.get(uuid)!;
  };

  /** Flips to up with a restarted clock and resolves the open outage (inside a transaction). */
  const closeOutage = (hc: Healthcheck, at: number): OutageRecord | undefined => {
    store.healthchecks.setState(hc.id, 'up', at);
    store.healthchecks.insertFlip(hc.id, at, 'up', null);
    const open = store.outages.openForHealthcheck(hc.id);
    if (!open) return undefined;
    store.outages.resolve(open.uuid, at);
    const resolved = store.outages.get(open.uuid)!;
    escalation.resolved(resolved, clock.now(), null, null);
    return store.outages.get(open.uuid)!;
  };

  /**
   * Emits what a committed change produced: outage events, then the healthcheck's new state
   * (`hc`, or read from the store by id when the caller has no current copy).
   */
  const announce = (hc: Healthcheck | number, opened?: OutageRecord, resolved?: OutageRecord) => {
    if (opened) bus.emit('outage.opened', { outage: opened });
    if (resolved) bus.emit('outage.resolved', { outage: resolved });
    const now = typeof hc === 'number' ? store.healthchecks.getById(hc) : hc;
    if (now) bus.emit('healthcheck.changed', { healthcheck: now });
  };

  /**
   * Applies one ping inside the ingest transaction: stores it, then runs the state machine.
   * @returns null for an unknown token (nothing is written), else what to announce after commit
   */
  const applyOne = (token: string, ping: Ping) => {
    const hc = store.healthchecks.get(token);
    if (!hc) return null;
    const effect = applyPing(hc, ping);
    // The count, the new status and clock in one UPDATE: the hot path of ping ingestion. The ping's
    // row is written with the batch's others (`insertPings`), in the same transaction.
    const { stored, healthcheck } = store.healthchecks.countPing(hc, ping, effect);
    let opened: OutageRecord | undefined;
    let resolved: OutageRecord | undefined;
    if (effect.flip === 'down') opened = openOutage(healthcheck, ping.at, failDescription(ping));
    else if (effect.flip === 'up') resolved = closeOutage(healthcheck, ping.at);
    return { healthcheck, stored, opened, resolved, healthcheckId: hc.id };
  };
  const keep = config.storage.pings_per_healthcheck;
  /**
   * Commits a batch of pings. The common case (no healthcheck flips) is one asynchronous transaction
   * (`recordPings`: on PostgreSQL the event loop does not wait for it). A batch in which a healthcheck
   * flips opens or resolves an outage, with escalation rows, in the same transaction: that still
   * takes the synchronous one (rare: a flip is a change of state), its rows locked in id order first
   * as the asynchronous path does, so concurrent batches of several instances cannot deadlock.
   */
  type Committed = NonNullable<ReturnType<typeof applyOne>>;
  const commitPings = async (batch: ReadonlyArray<{ token: string; ping: Ping }>): Promise<Array<Committed | null>> => {
    const recorded = await store.healthchecks.recordPings(batch, keep, applyPing);
    if (recorded !== 'synchronous') return recorded.map((r): Committed | null => r && { ...r, healthcheckId: r.healthcheck.id, opened: undefined, resolved: undefined });
    return store.tx((tx) => {
      tx.healthchecks.lockForPings(batch.map((p) => p.token));
      const all = batch.map((p) => applyOne(p.token, p.ping));
      tx.healthchecks.insertPings(
        all.filter((r) => r !== null),
        keep,
      );
      return all;
    });
  };
  const ingest = pingIngest({
    commit: commitPings,
    announce: (r) => announce(r.healthcheck, r.opened, r.resolved),
  });

  return {
    list: (): Healthcheck[] => store.healthchecks.list(),
    /**
     * By `tok_` uuid (or `hc_` public uuid).
     * @throws AppError 404 `healthchecks.not_found`
     */
    get: mustGet,
    /**
     * Creates an active healthcheck whose clock starts now (CONTRACT.md "Healthchecks").
     * @throws AppError 400 naming the field for a broken rule
     */
    create(body: HealthcheckBodyInput): Healthcheck {
      const settings = resolveHealthcheckSettings(body, null, knownPolicy);
      const hc = store.tx((tx) => tx.healthchecks.insert(newId(ID_PREFIX.healthcheck), newId(ID_PREFIX.healthcheckPublic), settings, clock.now()));
      bus.emit('healthcheck.changed', { healthcheck: hc });
      return hc;
    },
    /**
     * Replaces the settings; the clock and the state are kept, so a new period applies from the last
     * ping (a deadline that is already past opens the outage at once).
     * @throws AppError 404 / 400
     */
    update(uuid: string, body: HealthcheckBodyInput): Healthcheck {
      const hc = store.tx((tx) => {
        const current = mustGet(uuid);
        return tx.healthchecks.update(current.id, resolveHealthcheckSettings(body, current, knownPolicy), clock.now());
      });
      bus.emit('healthcheck.changed', { healthcheck: hc });
      return hc;
    },
    /**
     * Deletes a healthcheck with its pings and outages.
     * @throws AppError 404
     */
    delete(uuid: string): Healthcheck {
      const hc = store.tx((tx) => {
        const h = mustGet(uuid);
        tx.healthchecks.delete(h.id);
        return h;
      });
      bus.emit('healthcheck.deleted', { healthcheckId: hc.id, uuid: hc.uuid });
      return hc;
    },
    /**
     * Pauses: deadlines stop; pings are still recorded but change nothing. An open outage stays open
     * (resolve it through the outages API, or by a success ping after resume). Idempotent.
     * @throws AppError 404
     */
    pause(uuid: string): Healthcheck {
      const hc = store.tx((tx) => {
        const h = mustGet(uuid);
        if (!h.paused) tx.healthchecks.setPaused(h.id, true, h.clockStartAt, clock.now());
        return tx.healthchecks.getById(h.id)!;
      });
      bus.emit('healthcheck.changed', { healthcheck: hc });
      return hc;
    },
    /**
     * Resumes a paused healthcheck and restarts its clock now. Resuming an active one changes nothing.
     * @throws AppError 404
     */
    resume(uuid: string): Healthcheck {
      const hc = store.tx((tx) => {
        const h = mustGet(uuid);
        if (h.paused) tx.healthchecks.setPaused(h.id, false, clock.now(), clock.now());
        return tx.healthchecks.getById(h.id)!;
      });
      bus.emit('healthcheck.changed', { healthcheck: hc });
      return hc;
    },
    /**
     * Records a ping (committed before the promise resolves; pings arriving together share one
     * transaction). Unknown tokens write nothing.
     * @returns the stored ping, or null for an unknown token
     */
    ping: (token: string, ping: Ping): Promise<StoredPing | null> => ingest.submit(token, ping),
    /** True when `token` names a healthcheck (one indexed read, not blocking the event loop): the ping endpoint refuses other POSTs before reading their bodies. */
    knows: (token: string): Promise<boolean> => store.healthchecks.existsAsync(token),
    /**
     * The current state of the healthcheck of each `tok_` uuid that still exists, without blocking the
     * event loop (one read on PostgreSQL): what the cluster relay re-reads relayed changes with.
     * @throws (rejects) AppError 503 `store.unavailable` when the database cannot be reached in time
     */
    getManyAsync: (uuids: readonly string[]): Promise<Healthcheck[]> => store.healthchecks.getManyAsync(uuids),
    /** The newest pings, newest first. @throws AppError 404 */
    pings(uuid: string, limit: number): StoredPing[] {
      return store.healthchecks.latestPings(mustGet(uuid).id, limit);
    },
    /** The newest ping of a healthcheck, or null. */
    lastPing: (hc: Healthcheck): StoredPing | null => store.healthchecks.latestPings(hc.id, 1)[0] ?? null,
    /**
     * Called by the engine when a deadline timer fires: when the healthcheck is watched and now is
     * past its deadline (strictly), flips it down and opens an outage that starts at the deadline.
     * Anything else (a ping moved the deadline, paused, deleted) only re-announces the state so the
     * engine can set the right timer.
     */
    checkDeadline(healthcheckId: number): void {
      const now = clock.now();
      const opened = store.tx((tx) => {
        const hc = tx.healthchecks.getById(healthcheckId);
        if (!hc || !isWatched(hc)) return undefined;
        const deadline = deadlineAt(hc);
        if (deadline === null || now <= deadline) return undefined;
        return openOutage(hc, deadline, lateDescription(hc)) ?? null;
      });
      announce(healthcheckId, opened ?? undefined);
    },
  };
}

/** The healthchecks service's interface. */
export type HealthchecksService = ReturnType<typeof healthchecksService>;
