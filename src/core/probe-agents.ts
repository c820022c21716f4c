import type { Clock, TimerHandle } from '../lib/clock.ts';
import { AppError } from '../lib/errors.ts';
import type { AgentInfo, ProbeListing } from '../domain/probe.ts';
import type { Region } from '../domain/regions.ts';
import type { Principal, TokenInfo } from '../domain/user.ts';

/**
 * Results counted per one-minute window, for a probe's `checksPerSecond` (API: GET /v1/probes).
 * `windowStart` is epoch ms; `perSecond` is the rate of the last whole window.
 */
export interface Rate {
  windowStart: number;
  count: number;
  perSecond: number;
  full: boolean;
}

const RATE_WINDOW_MS = 60_000;

/** A new {@link Rate} whose first window starts at `now` (epoch ms). */
export const newRate = (now: number): Rate => ({ windowStart: now, count: 0, perSecond: 0, full: false });

/**
 * Counts `add` results at `now` (epoch ms) and returns the rate in results per second: the last whole
 * minute's, or until a whole minute passed, the rate so far.
 */
export function countRate(r: Rate, add: number, now: number): number {
  if (now - r.windowStart >= RATE_WINDOW_MS) {
    r.perSecond = r.count / ((now - r.windowStart) / 1000);
    r.windowStart = now;
    r.count = 0;
    r.full = true;
  }
  r.count += add;
  return r.full ? r.perSecond : r.count / Math.max(1, (now - r.windowStart) / 1000);
}

/** What the probes service keeps per remote agent (`pharos agent`, issue #7) while this process runs. */
export interface AgentState {
  info: AgentInfo;
  /** The probe token (`key_…`) the agent polls with: an agent id is never used by another token (issue 30). */
  tokenId: string;
  online: boolean;
  openPolls: number;
  /** Resolvers of this agent's held polls. */
  waiters: Set<() => void>;
  /** Bumped whenever the agent's checks (or one's settings) change. */
  version: number;
  monitors: Set<number>;
  rechecks: Set<number>;
  droppedResults: number;
  offlineTimer: TimerHandle | null;
  rate: Rate;
}

/** A new agent's state (offline until its poll says otherwise), first seen as `info`, polling with token `tokenId`. */
export const newAgentState = (info: AgentInfo, tokenId: string, now: number): AgentState => ({
  info,
  tokenId,
  online: false,
  openPolls: 0,
  waiters: new Set(),
  version: 0,
  monitors: new Set(),
  rechecks: new Set(),
  droppedResults: 0,
  offlineTimer: null,
  rate: newRate(now),
});

/**
 * Room for one more agent of probe token `tokenId` under the cap `max` (config `probe.agents_per_token`,
 * issue 30), so one token cannot register agents without bound: when the token holds `max` agents
 * already, its offline agent seen longest ago is returned to be forgotten; when all of them are online,
 * the new one is refused.
 * @returns the agent to forget, or null when there is room
 * @throws AppError 429 `probes.too_many_agents` when the token's `max` agents are all online
 */
export function makeRoomForAgent(agents: Iterable<AgentState>, tokenId: string, max: number): AgentState | null {
  let count = 0;
  let oldestOffline: AgentState | null = null;
  for (const a of agents) {
    if (a.tokenId !== tokenId) continue;
    count++;
    if (!a.online && a.openPolls === 0 && (!oldestOffline || a.info.lastSeen < oldestOffline.info.lastSeen)) oldestOffline = a;
  }
  if (count < max) return null;
  if (oldestOffline) return oldestOffline;
  throw new AppError(
    429,
    'probes.too_many_agents',
    `agent: this probe token has ${count} agents online, its limit (probe.agents_per_token = ${max}); stop one (it is offline after probe.agent_offline_seconds) or use another token`,
  );
}

/** Answers every held poll of `a` now. */
export function wakeAgent(a: AgentState): void {
  for (const w of a.waiters) w();
  a.waiters.clear();
}

/**
 * Holds an agent's poll until {@link wakeAgent}, `holdMs` (ms) on `clock`, or `signal` aborting
 * (the agent's connection closed); resolves in every case, never rejects.
 */
export function holdPoll(a: AgentState, clock: Clock, holdMs: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      hold.cancel();
      signal.removeEventListener('abort', done);
      a.waiters.delete(done);
      resolve();
    };
    const hold = clock.setTimer(holdMs, done);
    signal.addEventListener('abort', done);
    a.waiters.add(done);
  });
}

/**
 * The listing of remote agents for GET /v1/probes at `now` (epoch ms): online first, then by first
 * seen; a held poll counts as a live connection (last seen now).
 */
export function listAgents(agents: Iterable<AgentState>, now: number): ProbeListing[] {
  const remote = [...agents].map((a): ProbeListing => ({
    ...a.info,
    lastSeen: a.openPolls > 0 ? now : a.info.lastSeen,
    status: a.online ? 'online' : 'offline',
    connected: a.openPolls > 0,
    monitors: a.monitors.size,
    checksPerSecond: countRate(a.rate, 0, now),
    droppedResults: a.droppedResults,
  }));
  return remote.sort((x, y) => Number(y.status === 'online') - Number(x.status === 'online') || x.firstSeen - y.firstSeen);
}

/** What the agent routes know of the token they were called with: its id and granted regions (issue 30). */
export type ProbeCaller = Pick<Principal, 'tokenId' | 'regions'>;

/**
 * Refuses an agent request for a region its token was not granted (issue 30: a probe token serves the
 * regions an admin granted it, never the main's own region unless granted).
 * @throws AppError 403 `probes.region_not_granted` naming `region`
 */
export function assertRegionGranted(caller: ProbeCaller, region: string): void {
  const granted = caller.regions ?? [];
  if (granted.includes(region as Region)) return;
  const has = granted.length ? `is granted ${granted.join(', ')} only` : 'is granted no region (made before tokens had regions?): grant it some with `pharos token grant KEY --region …`';
  throw new AppError(403, 'probes.region_not_granted', `region: this probe token may not serve ${region}; it ${has}`);
}

/** 403 for an agent id that polls with another probe token than its own. */
export const agentOfOtherToken = (agentId: string) =>
  new AppError(403, 'probes.agent_of_other_token', `agent: ${agentId} is the agent of another probe token; each agent id belongs to the token it first polled with`);

/** An agent as the store remembers it, with the probe token it polled with (null: from before tokens were kept). */
export type AgentSeen = AgentInfo & { tokenId: string | null };

/**
 * The agents of `seen` (stored as seen in the last hour) that a main starting, or gaining leadership,
 * expects back: not `known` already, their token live and still granting their region, at most
 * `perTokenMax` per token (the newest first).
 */
export function agentsToRecall(tokens: readonly TokenInfo[], seen: readonly AgentSeen[], known: (agentId: string) => boolean, perTokenMax: number): Array<{ info: AgentInfo; tokenId: string }> {
  const grants = new Map(tokens.filter((t) => t.scope === 'probe' && t.revokedAt === null).map((t) => [t.id, t.regions]));
  const perToken = new Map<string, number>();
  const out: Array<{ info: AgentInfo; tokenId: string }> = [];
  for (const { tokenId, ...info } of [...seen].sort((x, y) => y.lastSeen - x.lastSeen)) {
    if (known(info.id) || tokenId === null || !grants.get(tokenId)?.includes(info.region)) continue;
    const n = perToken.get(tokenId) ?? 0;
    if (n >= perTokenMax) continue;
    perToken.set(tokenId, n + 1);
    out.push({ info, tokenId });
  }
  return out;
}

/** Live probe tokens granted no region (made before tokens had regions): their agents are refused. */
export const ungrantedProbeTokens = (tokens: readonly TokenInfo[]): TokenInfo[] => tokens.filter((t) => t.scope === 'probe' && t.revokedAt === null && t.regions.length === 0);

/** The online agents' ids by region. */
export function onlineByRegion(agents: Iterable<AgentState>): Map<Region, Set<string>> {
  const on = new Map<Region, Set<string>>();
  for (const a of agents) {
    if (!a.online) continue;
    let set = on.get(a.info.region);
    if (!set) on.set(a.info.region, (set = new Set()));
    set.add(a.info.id);
  }
  return on;
}
