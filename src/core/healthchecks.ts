import type { Config } from '../config/schema.ts';
import type { Clock } from '../lib/clock.ts';
import { notFound } from '../lib/errors.ts';
import { ID_PREFIX } from '../domain/ids.ts';
import { resolveHealthcheckSettings, type Healthcheck, type HealthcheckBodyInput } from '../domain/healthcheck.ts';
import { applyPing, type Ping, type StoredPing } from '../domain/ping.ts';
import type { OutageRecord } from '../domain/outage.ts';
import type { Store } from '../store/index.ts';
import type { AuditActor } from '../domain/audit.ts';
import type { EscalationService } from './escalation.ts';
import type { EventBus } from './events.ts';
import { pingIngest } from './ping-ingest.ts';
import {
  checkDeadlineTx,
  createHealthcheck,
  deleteHealthcheck,
  recordPingsWithFlips,
  setHealthcheckPaused,
  updateHealthcheck,
  type OutageArgs,
  type PingApplied,
} from './healthcheck-tx.ts';

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
  // The policy's existence is checked against the store in the procedure that inserts (createHealthcheck).
  const knownPolicy = (_uuid: string) => true;
  /** By the secret `tok_` uuid, or by the `hc_` public uuid (one read, not blocking the event loop). */
  const find = (uuid: string): Promise<Healthcheck | undefined> =>
    uuid.startsWith(ID_PREFIX.healthcheckPublic) ? store.async.healthchecks.getByPublicUuid(uuid) : store.async.healthchecks.get(uuid);
  const mustGet = async (uuid: string): Promise<Healthcheck> => {
    const hc = await find(uuid);
    if (!hc) throw notFound('healthchecks', 'Healthcheck');
    return hc;
  };
  /** What the procedures that open or resolve an outage need of the configuration, at `now`. */
  const outageArgs = (): OutageArgs => ({ region: config.probe.region, escalation: escalation.settings, now: clock.now() });

  /** Emits what a committed change produced: outage events, then the healthcheck's new state (none: deleted meanwhile). */
  const announce = (hc: Healthcheck | undefined, opened?: OutageRecord, resolved?: OutageRecord) => {
    if (opened) bus.emit('outage.opened', { outage: opened });
    if (resolved) bus.emit('outage.resolved', { outage: resolved });
    if (hc) bus.emit('healthcheck.changed', { healthcheck: hc });
  };

  const keep = config.storage.pings_per_healthcheck;
  /**
   * Commits a batch of pings. The common case (no healthcheck flips) is one asynchronous transaction
   * (`recordPings`). A batch in which a healthcheck flips opens or resolves an outage, with escalation
   * rows, in the same transaction: the procedure {@link recordPingsWithFlips} (rare: a flip is a change
   * of state); neither blocks the event loop on PostgreSQL.
   */
  const commitPings = async (batch: ReadonlyArray<{ token: string; ping: Ping }>): Promise<Array<PingApplied | null>> => {
    const recorded = await store.healthchecks.recordPings(batch, keep, applyPing);
    if (recorded !== 'synchronous') return recorded.map((r): PingApplied | null => r && { ...r, healthcheckId: r.healthcheck.id, opened: undefined, resolved: undefined });
    // Only the token and the ping cross to the procedure (a queued entry also holds its promise's functions).
    return store.async.tx(recordPingsWithFlips, { batch: batch.map(({ token, ping }) => ({ token, ping })), keep, outage: outageArgs() });
  };
  const ingest = pingIngest({
    commit: commitPings,
    announce: (r) => announce(r.healthcheck, r.opened, r.resolved),
  });

  return {
    list: (): Promise<Healthcheck[]> => store.async.healthchecks.list(),
    /** Per healthcheck id: when its newest outage started (epoch ms; `lastDowntime` of the hosted service), or null. */
    lastDowntimes: (ids: number[]): Promise<Record<number, number | null>> => (ids.length === 0 ? Promise.resolve({}) : store.async.outages.lastStartForHealthchecks(ids)),
    /**
     * By `tok_` uuid (or `hc_` public uuid).
     * @throws (rejects) AppError 404 `healthchecks.not_found`
     */
    get: mustGet,
    /**
     * Creates an active healthcheck whose clock starts now (CONTRACT.md "Healthchecks"). Every write
     * here records `actor` in the audit log in its own transaction (healthcheck-tx.ts).
     * @throws (rejects) AppError 400 naming the field for a broken rule
     */
    async create(body: HealthcheckBodyInput, actor: AuditActor): Promise<Healthcheck> {
      const settings = resolveHealthcheckSettings(body, null, knownPolicy);
      const hc = await store.async.tx(createHealthcheck, { settings, now: clock.now(), actor });
      bus.emit('healthcheck.changed', { healthcheck: hc });
      return hc;
    },
    /**
     * Replaces the settings; the clock and the state are kept, so a new period applies from the last
     * ping (a deadline that is already past opens the outage at once).
     * @throws (rejects) AppError 404 / 400
     */
    async update(uuid: string, body: HealthcheckBodyInput, actor: AuditActor): Promise<Healthcheck> {
      const hc = await store.async.tx(updateHealthcheck, { uuid, body, now: clock.now(), actor });
      bus.emit('healthcheck.changed', { healthcheck: hc });
      return hc;
    },
    /**
     * Deletes a healthcheck with its pings and outages.
     * @throws (rejects) AppError 404
     */
    async delete(uuid: string, actor: AuditActor): Promise<Healthcheck> {
      const hc = await store.async.tx(deleteHealthcheck, { uuid, now: clock.now(), actor });
      bus.emit('healthcheck.deleted', { healthcheckId: hc.id, uuid: hc.uuid });
      return hc;
    },
    /**
     * Pauses: deadlines stop; pings are still recorded but change nothing. An open outage stays open
     * (resolve it through the outages API, or by a success ping after resume). Idempotent.
     * @throws (rejects) AppError 404
     */
    async pause(uuid: string, actor: AuditActor): Promise<Healthcheck> {
      const hc = await store.async.tx(setHealthcheckPaused, { uuid, paused: true, now: clock.now(), actor });
      bus.emit('healthcheck.changed', { healthcheck: hc });
      return hc;
    },
    /**
     * Resumes a paused healthcheck and restarts its clock now. Resuming an active one changes nothing.
     * @throws (rejects) AppError 404
     */
    async resume(uuid: string, actor: AuditActor): Promise<Healthcheck> {
      const hc = await store.async.tx(setHealthcheckPaused, { uuid, paused: false, now: clock.now(), actor });
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
    /** The newest pings, newest first. @throws (rejects) AppError 404 */
    async pings(uuid: string, limit: number): Promise<StoredPing[]> {
      return store.async.healthchecks.latestPings((await mustGet(uuid)).id, limit);
    },
    /** The newest ping of a healthcheck, or null. */
    lastPing: async (hc: Healthcheck): Promise<StoredPing | null> => (await store.async.healthchecks.latestPings(hc.id, 1))[0] ?? null,
    /**
     * Called by the engine when a deadline timer fires: when the healthcheck is watched and now is
     * past its deadline (strictly), flips it down and opens an outage that starts at the deadline.
     * Anything else (a ping moved the deadline, paused, deleted) only re-announces the state so the
     * engine can set the right timer.
     * @param fenceEpoch with several instances, the leader's fencing number: checked in the same transaction
     * @throws (rejects) LeaseLostError (or AppError `cluster.lease_lost`) when another instance leads now; nothing is written
     */
    async checkDeadline(healthcheckId: number, fenceEpoch: number | null = null): Promise<void> {
      const { opened, healthcheck } = await store.async.tx(checkDeadlineTx, { healthcheckId, epoch: fenceEpoch, outage: outageArgs() });
      announce(healthcheck, opened);
    },
  };
}

/** The healthchecks service's interface. */
export type HealthchecksService = ReturnType<typeof healthchecksService>;
