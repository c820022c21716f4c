import type { Clock, TimerHandle } from '../lib/clock.ts';
import type { AgentInfo, ProbeListing } from '../domain/probe.ts';

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

/** A new agent's state (offline until its poll says otherwise), first seen as `info`. */
export const newAgentState = (info: AgentInfo, now: number): AgentState => ({
  info,
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
