import type { Config } from '../config/schema.ts';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import { randomBase62 } from '../domain/ids.ts';
import type { Monitor } from '../domain/monitor.ts';
import { checkSpec, LOCAL_PROBE, planProbes, type AgentInfo, type AssignedCheck, type PollAnswer, type PollBody, type ProbeListing, type ProbePlan } from '../domain/probe.ts';
import type { Region } from '../domain/regions.ts';
import type { TokenInfo } from '../domain/user.ts';
import type { Store } from '../store/index.ts';
import type { EventBus } from './events.ts';
import { agentOfOtherToken, agentsToRecall, assertRegionGranted, countRate, holdPoll, listAgents, makeRoomForAgent, newAgentState, newRate, onlineByRegion, ungrantedProbeTokens, wakeAgent, type AgentSeen, type AgentState, type ProbeCaller } from './probe-agents.ts';
import { probeDueTimes } from './probe-due.ts';

/** Agents seen this recently before a start are expected back (see `start`). */
const STARTUP_MEMORY_MS = 3_600_000;

/**
 * Remote probes (`pharos agent`, issue #7): which agents are online, which probe serves each of a
 * monitor's regions (the {@link ProbePlan}), the agents' long polls for their checks, and
 * re-check requests. The local probe's share is announced on the bus (`probe.local`,
 * `probe.local.recheck`); the engine's scheduler follows it.
 *
 * An agent is online while it has a poll open, and for `agent_offline_seconds` after its last one
 * ended; then its region's monitors move to the region's other agents, or to the local probe.
 * Agents seen in the hour before a restart count as online for that window after the start, so a
 * restarted main does not take their regions over while they reconnect.
 */
export function probesService(deps: { store: Store; clock: Clock; bus: EventBus; logger: Logger; config: Pick<Config, 'probe'> }) {
  const { store, clock, bus, logger } = deps;
  const mainRegion = deps.config.probe.region;
  const offlineMs = deps.config.probe.agent_offline_seconds * 1000;
  const pollHoldMs = deps.config.probe.agent_poll_seconds * 1000;
  const agentsPerToken = deps.config.probe.agents_per_token;
  // A new main answers every agent's first poll with its full assignment.
  const bootId = randomBase62(8);
  const agents = new Map<string, AgentState>();
  const monitors = new Map<number, Monitor>();
  const byUuid = new Map<string, number>();
  const plans = new Map<number, ProbePlan>();
  /** When each monitor is next due per region (newest results seen, read from the store when unknown). */
  const due = probeDueTimes({ store, logger });
  /**
   * Local-share announcements (`probe.local`) made per monitor: one that waits for a read of its due
   * time is dropped when a newer one went out meanwhile.
   */
  const announced = new Map<number, number>();
  const localRate = newRate(clock.now());

  /** Plans of monitors none of whose regions has an agent, shared by their regions (most monitors, most of the time). */
  const localPlans = new Map<string, ProbePlan>();
  const planOf = (m: Monitor, on: ReadonlyMap<Region, ReadonlySet<string>>): ProbePlan => {
    if (m.regions.some((r) => on.has(r))) return planProbes(m, on, mainRegion);
    const key = m.regions.join(',');
    let plan = localPlans.get(key);
    if (!plan) localPlans.set(key, (plan = planProbes(m, on, mainRegion)));
    return plan;
  };

  const bump = (a: AgentState) => {
    a.version++;
    wakeAgent(a);
  };

  /**
   * Recomputes the plans of `ids`; tells the agents whose checks changed and the local scheduler.
   * @param settingsChanged the monitors' settings changed: their probes must get the new ones
   * @param fresh the monitors were just created (no result of theirs exists: nothing to read)
   */
  const replan = (ids: Iterable<number>, settingsChanged = false, fresh = false) => {
    const on = onlineByRegion(agents.values());
    const touched = new Set<AgentState>();
    /** Local-share announcements made without a due time, which is being read (the first hand-over after a restart). */
    const waiting: Array<{ id: number; m: Monitor; region: Region; seq: number }> = [];
    for (const id of ids) {
      const m = monitors.get(id);
      const old = plans.get(id);
      const next = m ? planOf(m, on) : undefined;
      const before = new Set(old?.agents.values());
      const after = new Set(next?.agents.values());
      for (const a of before) {
        const agent = agents.get(a);
        if (!agent) continue;
        if (!after.has(a)) agent.monitors.delete(id);
        if (!after.has(a) || settingsChanged) touched.add(agent);
      }
      for (const a of after) {
        const agent = agents.get(a)!;
        if (before.has(a)) continue;
        agent.monitors.add(id);
        touched.add(agent);
      }
      if (next) plans.set(id, next);
      else plans.delete(id);
      const localBefore = old?.localRegion ?? null;
      const localAfter = next?.localRegion ?? null;
      if (localBefore !== localAfter || (settingsChanged && localAfter)) {
        const seq = (announced.get(id) ?? 0) + 1;
        announced.set(id, seq);
        const dueAt = localAfter ? due.dueAt(m!, localAfter) : undefined;
        // Announced now (the scheduler has the monitor at once); one whose due time is not known here is
        // announced again once it is read, if it was ever checked.
        bus.emit('probe.local', { monitorId: id, monitor: localAfter ? m! : null, region: localAfter, nextDueAt: dueAt ?? null });
        if (localAfter && dueAt === undefined && !fresh) waiting.push({ id, m: m!, region: localAfter, seq });
      }
    }
    for (const a of touched) bump(a);
    if (waiting.length === 0) return;
    // Read asynchronously (never rejects); announced again unless a newer announcement went out meanwhile.
    void due.fill(waiting.map((w) => [w.m, w.region] as const)).then(() => {
      for (const w of waiting) {
        const dueAt = due.dueAt(w.m, w.region);
        if (dueAt !== undefined && announced.get(w.id) === w.seq) bus.emit('probe.local', { monitorId: w.id, monitor: w.m, region: w.region, nextDueAt: dueAt });
      }
    });
  };

  const monitorsIn = (region: Region) => [...monitors.values()].filter((m) => m.regions.includes(region)).map((m) => m.id);

  const setOnline = (a: AgentState, online: boolean) => {
    if (a.online === online) return;
    a.online = online;
    const line = `agent "${a.info.name}" (${a.info.region}) ${online ? 'joined' : `left: no poll for ${deps.config.probe.agent_offline_seconds} s, its monitors move to other probes`}`;
    if (online) logger.info(line, { agent: a.info.id, name: a.info.name, region: a.info.region });
    else logger.warn(line, { agent: a.info.id, name: a.info.name, region: a.info.region });
    replan(monitorsIn(a.info.region));
  };

  const armOffline = (a: AgentState) => {
    a.offlineTimer?.cancel();
    a.offlineTimer = clock.setTimer(Math.max(0, a.info.lastSeen + offlineMs - clock.now()), () => {
      a.offlineTimer = null;
      if (a.openPolls > 0) return;
      // Fired a few ms early by clock.now() (setTimeout runs on the loop's cached monotonic time): wait out the rest.
      if (clock.now() - a.info.lastSeen < offlineMs) armOffline(a);
      else setOnline(a, false);
    });
  };

  const newAgent = (info: AgentInfo, tokenId: string): AgentState => {
    const a = newAgentState(info, tokenId, clock.now());
    agents.set(info.id, a);
    return a;
  };
  /** Forgets an offline agent for good: at once in memory, and in the store by the returned promise (replaced by a newer agent of its token). */
  const forget = (a: AgentState): Promise<void> => {
    a.offlineTimer?.cancel();
    agents.delete(a.info.id);
    return store.async.probes.forgetAgent(a.info.id);
  };

  const assignment = (a: AgentState) => `${bootId}.${a.version}`;
  const answer = (a: AgentState, since: string | null): PollAnswer => {
    const token = assignment(a);
    const rechecks = [...a.rechecks].filter((id) => a.monitors.has(id)).map((id) => monitors.get(id)!.uuid);
    a.rechecks.clear();
    if (since === token) return { assignment: token, checks: null, rechecks };
    // Plans give an agent only monitors of its region, which its token was granted at this poll: the
    // specs (request headers, credentials in URLs) of other regions' monitors never reach it.
    const mine = [...a.monitors].filter((id) => monitors.get(id)!.regions.includes(a.info.region));
    const checks: AssignedCheck[] = mine.map((id) => {
      const m = monitors.get(id)!;
      return { monitor: m.uuid, frequencySeconds: m.checkFrequencySeconds, nextDueAt: due.dueAt(m, a.info.region) ?? null, spec: checkSpec(m) };
    });
    return { assignment: token, checks, rechecks };
  };
  /** {@link answer}, the due times of the agent's checks read first when its checks go with it (asynchronously). */
  const answerAfterDueTimes = async (a: AgentState, since: string | null): Promise<PollAnswer> => {
    if (since !== assignment(a)) {
      const mine = [...a.monitors].map((id) => monitors.get(id)!).filter((m) => m.regions.includes(a.info.region));
      await due.fill(mine.map((m) => [m, a.info.region] as const));
    }
    return answer(a, since);
  };

  /**
   * Agents seen in the last hour (stored by whichever instance served their polls) keep their regions
   * for agent_offline_seconds from now (see {@link agentsToRecall}). At start, and when this instance
   * gains leadership (issue 22).
   */
  const recallAgents = ([tokens, seen]: [TokenInfo[], AgentSeen[]]) => {
    const now = clock.now();
    for (const { info, tokenId } of agentsToRecall(tokens, seen, (id) => agents.has(id), agentsPerToken)) {
      const a = newAgent({ ...info, lastSeen: now }, tokenId);
      a.online = true;
      armOffline(a);
    }
  };
  /** The tokens and the agents seen in the last hour, for {@link recallAgents} (asynchronous reads). */
  const readRecall = () => Promise.all([store.async.users.listTokens(), store.async.probes.agentsSeenSince(clock.now() - STARTUP_MEMORY_MS)]);

  const upsertMonitor = (m: Monitor, settingsChanged: boolean, fresh = false) => {
    if (m.paused) return removeMonitor(m.id);
    monitors.set(m.id, m);
    byUuid.set(m.uuid, m.id);
    replan([m.id], settingsChanged, fresh);
  };
  const removeMonitor = (id: number) => {
    const m = monitors.get(id);
    if (!m) return;
    monitors.delete(id);
    byUuid.delete(m.uuid);
    replan([id]);
    announced.delete(id);
    due.forget(id);
  };

  return {
    /**
     * Loads the monitors and the agents seen in the last hour (online until they miss `agent_offline_seconds`
     * from now), plans every monitor and follows monitor events. The scheduler asks for its share (`announceLocal`).
     * The store is read asynchronously; monitor events heard meanwhile win over what the read returned.
     * @throws (rejects) the store's error when the reads fail
     */
    async start(): Promise<void> {
      let heard: Set<number> | null = new Set();
      const follow = (id: number) => heard?.add(id);
      bus.on('monitor.created', ({ monitor }) => (follow(monitor.id), upsertMonitor(monitor, false, true)));
      bus.on('monitor.updated', ({ monitor }) => (follow(monitor.id), upsertMonitor(monitor, true)));
      bus.on('monitor.deleted', ({ monitorId }) => (follow(monitorId), removeMonitor(monitorId)));
      try {
        const [recall, list] = await Promise.all([readRecall(), store.async.monitors.list()]);
        // Probe tokens made before tokens had regions are refused until granted some: said once at start.
        for (const t of ungrantedProbeTokens(recall[0])) {
          logger.warn(`probe token ${t.id} ("${t.name}") is granted no region, so its agents are refused: grant the regions it serves with \`pharos token grant ${t.id} --region …\``, { token: t.id });
        }
        recallAgents(recall);
        for (const m of list) {
          if (m.paused || heard.has(m.id)) continue;
          monitors.set(m.id, m);
          byUuid.set(m.uuid, m.id);
        }
      } finally {
        heard = null;
      }
      replan(monitors.keys());
    },
    /**
     * Recalls recent agents, then announces the local share (`probe.local`, due times re-read): for a
     * scheduler started later (at start, on gaining leadership). Reads asynchronously; never rejects
     * (a failed read is logged and the share announced with what is known).
     */
    announceLocal: async (): Promise<void> => {
      try {
        recallAgents(await readRecall());
      } catch (e) {
        logger.warn('reading the agents seen before failed: the local probe plans without them', { error: (e as Error).message });
      }
      replan(monitors.keys());
      const local: Array<readonly [Monitor, Region]> = [];
      for (const [id, { localRegion: r }] of plans) if (r) local.push([monitors.get(id)!, r]);
      for (const [m, r] of local) due.drop(m.id, r);
      await due.fill(local);
      for (const [id, { localRegion: r }] of plans) {
        if (!r) continue;
        const m = monitors.get(id)!;
        announced.set(id, (announced.get(id) ?? 0) + 1);
        bus.emit('probe.local', { monitorId: id, monitor: m, region: r, nextDueAt: due.dueAt(m, r) ?? null });
      }
    },
    /** The plan of an active monitor, or undefined (paused, deleted). */
    plan: (monitorId: number): ProbePlan | undefined => plans.get(monitorId),
    /** Active (unpaused) monitors. */
    activeCount: (): number => monitors.size,
    /** Active monitors, for status counts. */
    activeMonitors: (): IterableIterator<Monitor> => monitors.values(),
    /** An active (unpaused) monitor by id or uuid. */
    monitor: (id: number): Monitor | undefined => monitors.get(id),
    monitorIdOf: (uuid: string): number | undefined => byUuid.get(uuid),
    /** True when agent `agentId` has polled since start (or was remembered at start). */
    knows: (agentId: string): boolean => agents.has(agentId),
    /**
     * Refuses a result batch whose agent is not the caller token's, or whose region the token was not granted.
     * @throws AppError 403 `probes.region_not_granted` or `probes.agent_of_other_token`
     */
    assertAgentOf(caller: ProbeCaller, agentId: string, region: string): void {
      assertRegionGranted(caller, region);
      const a = agents.get(agentId);
      if (a && a.tokenId !== caller.tokenId) throw agentOfOtherToken(agentId);
    },
    /** True when the plan gives monitor `monitorId` in `region` to agent `agentId` now (its results are accepted). */
    assigned: (agentId: string, region: string, monitorId: number): boolean => plans.get(monitorId)?.agents.get(region as Region) === agentId,
    /** Notes a result's start time (grid continuity on hand-over) and counts it for the probe's rate. */
    noteResult(monitorId: number, region: string, at: number, probe: string): void {
      due.note(monitorId, region, at);
      const rate = probe === LOCAL_PROBE ? localRate : agents.get(probe)?.rate;
      if (rate) countRate(rate, 1, clock.now());
    },
    /**
     * Asks the probes of `regions` to re-check a monitor after `delayMs` (the local probe through
     * `probe.local.recheck`, an agent through its next poll answer).
     */
    requestRecheck(monitorId: number, regions: readonly string[], delayMs: number): void {
      const plan = plans.get(monitorId);
      if (!plan) return;
      for (const region of regions) {
        if (region === plan.localRegion) {
          bus.emit('probe.local.recheck', { monitorId, delayMs });
          continue;
        }
        const a = agents.get(plan.agents.get(region as Region) ?? '');
        if (!a) continue;
        const ask = () => {
          a.rechecks.add(monitorId);
          wakeAgent(a);
        };
        if (delayMs > 0) clock.setTimer(delayMs, ask);
        else ask();
      }
    },
    /**
     * An agent's poll: registers it (first poll), keeps it online while the poll is open, and
     * answers at once when its checks changed since `body.assignment` or re-checks wait, else when
     * that happens, after `agent_poll_seconds`, or never when `signal` aborts (client gone).
     */
    async poll(body: PollBody, signal: AbortSignal, caller: ProbeCaller): Promise<PollAnswer> {
      assertRegionGranted(caller, body.region);
      const now = clock.now();
      let a = agents.get(body.agent);
      if (a && a.tokenId !== caller.tokenId) throw agentOfOtherToken(body.agent);
      // Memory changes first, all in this turn (a concurrent poll sees them: the cap holds); the store's writes after.
      let forgotten: Promise<void> | null = null;
      if (!a) {
        const room = makeRoomForAgent(agents.values(), caller.tokenId, agentsPerToken);
        if (room) forgotten = forget(room);
      }
      const info: AgentInfo = {
        id: body.agent,
        name: body.name,
        region: body.region,
        version: body.version,
        sourceAddress: body.sourceAddress ?? null,
        firstSeen: a?.info.firstSeen ?? now,
        lastSeen: now,
      };
      const stored = a !== undefined; // a first poll since this start is saved whole; a known agent only touched
      if (!a) a = newAgent(info, caller.tokenId);
      const regionBefore = a.info.region;
      const known = stored && a.info.name === info.name && a.info.version === info.version && a.info.sourceAddress === info.sourceAddress && regionBefore === info.region;
      a.info = info;
      if (body.droppedResults !== undefined) a.droppedResults = body.droppedResults;
      if (forgotten) await forgotten;
      if (known) await store.async.probes.touchAgent(info.id, now);
      else await store.async.probes.saveAgent(info, caller.tokenId);
      a.openPolls++;
      a.offlineTimer?.cancel();
      a.offlineTimer = null;
      if (regionBefore !== info.region && a.online) {
        a.online = false;
        replan(monitorsIn(regionBefore));
      }
      setOnline(a, true);
      const agent = a;
      try {
        // signal.aborted: the agent's connection closed before the hold (an 'abort' listener would never fire).
        if (signal.aborted || body.assignment !== assignment(agent) || agent.rechecks.size > 0) return await answerAfterDueTimes(agent, body.assignment);
        await holdPoll(agent, clock, pollHoldMs, signal);
        return await answerAfterDueTimes(agent, body.assignment);
      } finally {
        agent.openPolls--;
        agent.info.lastSeen = clock.now();
        if (agent.openPolls === 0) armOffline(agent);
      }
    },
    /** The local probe and every agent known since start, online first. */
    list(version: string): ProbeListing[] {
      const now = clock.now();
      const local: ProbeListing = {
        id: LOCAL_PROBE,
        name: 'local',
        region: mainRegion,
        version,
        sourceAddress: deps.config.probe.source_address ?? null,
        firstSeen: localRate.windowStart,
        lastSeen: now,
        status: 'online',
        connected: true,
        monitors: [...plans.values()].filter((p) => p.localRegion).length,
        checksPerSecond: countRate(localRate, 0, now),
        droppedResults: 0,
      };
      return [local, ...listAgents(agents.values(), now)];
    },
    /** Answers every held poll (shutdown). */
    stop(): void {
      for (const a of agents.values()) {
        a.offlineTimer?.cancel();
        wakeAgent(a);
      }
    },
  };
}

/** The probes service's interface. */
export type ProbesService = ReturnType<typeof probesService>;
