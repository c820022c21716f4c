import type { Config } from '../config/schema.ts';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import { randomBase62 } from '../domain/ids.ts';
import type { Monitor } from '../domain/monitor.ts';
import {
  checkSpec,
  LOCAL_PROBE,
  planProbes,
  type AgentInfo,
  type AssignedCheck,
  type PollAnswer,
  type PollBody,
  type ProbeListing,
  type ProbePlan,
} from '../domain/probe.ts';
import { REGIONS, type Region } from '../domain/regions.ts';
import type { Store } from '../store/index.ts';
import type { EventBus } from './events.ts';
import { agentOfOtherToken, assertRegionGranted, countRate, holdPoll, listAgents, makeRoomForAgent, newAgentState, newRate, wakeAgent, type AgentState, type ProbeCaller } from './probe-agents.ts';

/** A numeric key per (monitor, region): no string is built per result on the hot path. */
const REGION_SLOTS = 32;
const REGION_INDEX = new Map<string, number>(REGIONS.map((r, i) => [r, i]));
const lastKey = (monitorId: number, region: string) => monitorId * REGION_SLOTS + (REGION_INDEX.get(region) ?? REGION_SLOTS - 1);
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
  /** {@link lastKey} of a monitor and region → start (epoch ms) of the newest result seen for it. */
  const lastAt = new Map<number, number>();
  const localRate = newRate(clock.now());

  const onlineByRegion = () => {
    const on = new Map<Region, Set<string>>();
    for (const a of agents.values()) {
      if (!a.online) continue;
      let set = on.get(a.info.region);
      if (!set) on.set(a.info.region, (set = new Set()));
      set.add(a.info.id);
    }
    return on;
  };

  /** When the check of a monitor in a region is next due, continuing the probe that had it. */
  const nextDueAt = (m: Monitor, region: Region): number | null => {
    const key = lastKey(m.id, region);
    let last = lastAt.get(key);
    if (last === undefined) {
      // Any region's newest result: an index seek (the first hand-over after a restart is the only user).
      const stored = store.checks.lastCheckAt(m.id);
      if (stored === null) return null;
      lastAt.set(key, (last = stored));
    }
    return last + m.checkFrequencySeconds * 1000;
  };

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
   */
  const replan = (ids: Iterable<number>, settingsChanged = false) => {
    const on = onlineByRegion();
    const touched = new Set<AgentState>();
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
        bus.emit('probe.local', { monitorId: id, monitor: localAfter ? m! : null, region: localAfter, nextDueAt: localAfter ? nextDueAt(m!, localAfter) : null });
      }
    }
    for (const a of touched) bump(a);
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
  /** Forgets an offline agent for good (memory and store): replaced by a newer agent of its token. */
  const forget = (a: AgentState) => {
    a.offlineTimer?.cancel();
    agents.delete(a.info.id);
    store.probes.forgetAgent(a.info.id);
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
      return { monitor: m.uuid, frequencySeconds: m.checkFrequencySeconds, nextDueAt: nextDueAt(m, a.info.region), spec: checkSpec(m) };
    });
    return { assignment: token, checks, rechecks };
  };

  /**
   * Agents seen in the last hour (stored by whichever instance served their polls) keep their regions
   * for agent_offline_seconds from now: they reconnect within a couple of seconds; those that do not
   * come back then fall back. At start, and when this instance gains leadership (issue 22).
   */
  const recallAgents = () => {
    const now = clock.now();
    // Only agents whose token is live and still grants their region, at most agents_per_token per token (the newest).
    const grants = new Map(store.users.listTokens().filter((t) => t.scope === 'probe' && t.revokedAt === null).map((t) => [t.id, t.regions]));
    const perToken = new Map<string, number>();
    const seen = store.probes.agentsSeenSince(now - STARTUP_MEMORY_MS).sort((x, y) => y.lastSeen - x.lastSeen);
    for (const { tokenId, ...info } of seen) {
      if (agents.has(info.id) || tokenId === null || !grants.get(tokenId)?.includes(info.region)) continue;
      const n = perToken.get(tokenId) ?? 0;
      if (n >= agentsPerToken) continue;
      perToken.set(tokenId, n + 1);
      const a = newAgent({ ...info, lastSeen: now }, tokenId);
      a.online = true;
      armOffline(a);
    }
  };

  /** Probe tokens made before tokens had regions are refused until granted some: say so once at start. */
  const warnUngrantedTokens = () => {
    for (const t of store.users.listTokens()) {
      if (t.scope !== 'probe' || t.revokedAt !== null || t.regions.length > 0) continue;
      logger.warn(`probe token ${t.id} ("${t.name}") is granted no region, so its agents are refused: grant the regions it serves with \`pharos token grant ${t.id} --region …\``, { token: t.id });
    }
  };

  const upsertMonitor = (m: Monitor, settingsChanged: boolean) => {
    if (m.paused) return removeMonitor(m.id);
    monitors.set(m.id, m);
    byUuid.set(m.uuid, m.id);
    replan([m.id], settingsChanged);
  };
  const removeMonitor = (id: number) => {
    const m = monitors.get(id);
    if (!m) return;
    monitors.delete(id);
    byUuid.delete(m.uuid);
    replan([id]);
    for (let r = 0; r < REGIONS.length; r++) lastAt.delete(id * REGION_SLOTS + r);
  };

  return {
    /**
     * Loads the monitors and the agents seen in the last hour (online until they miss `agent_offline_seconds`
     * from now), plans every monitor and follows monitor events. The scheduler asks for its share (`announceLocal`).
     */
    start(): void {
      warnUngrantedTokens();
      recallAgents();
      for (const m of store.monitors.list()) {
        if (m.paused) continue;
        monitors.set(m.id, m);
        byUuid.set(m.uuid, m.id);
      }
      replan(monitors.keys());
      bus.on('monitor.created', ({ monitor }) => upsertMonitor(monitor, false));
      bus.on('monitor.updated', ({ monitor }) => upsertMonitor(monitor, true));
      bus.on('monitor.deleted', ({ monitorId }) => removeMonitor(monitorId));
    },
    /** Recalls recent agents, then announces the local share (`probe.local`, due times re-read): for a scheduler started later (at start, on gaining leadership). */
    announceLocal: (): void => {
      recallAgents();
      replan(monitors.keys());
      for (const [id, { localRegion: r }] of plans) {
        if (!r) continue;
        lastAt.delete(lastKey(id, r));
        bus.emit('probe.local', { monitorId: id, monitor: monitors.get(id)!, region: r, nextDueAt: nextDueAt(monitors.get(id)!, r) });
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
      const key = lastKey(monitorId, region);
      if ((lastAt.get(key) ?? -1) < at) lastAt.set(key, at);
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
      if (!a) {
        const room = makeRoomForAgent(agents.values(), caller.tokenId, agentsPerToken);
        if (room) forget(room);
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
      if (known) store.probes.touchAgent(info.id, now);
      else store.probes.saveAgent(info, caller.tokenId);
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
        if (signal.aborted || body.assignment !== assignment(agent) || agent.rechecks.size > 0) return answer(agent, body.assignment);
        await holdPoll(agent, clock, pollHoldMs, signal);
        return answer(agent, body.assignment);
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
