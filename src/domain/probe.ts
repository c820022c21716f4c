import { z } from 'zod';
import type { CheckSpec } from '../protocols/index.ts';
import type { Monitor } from './monitor.ts';
import { probeTarget } from './monitor.ts';
import { REGIONS, type Region } from './regions.ts';

export type { CheckSpec } from '../protocols/index.ts';

/** User-Agent of HTTP checks unless config `probe.user_agent` says otherwise. */
export const DEFAULT_USER_AGENT = 'Pharos-Uptime-Monitor/0.1 (+https://github.com/pharos)';

/** The probe id recorded on results of the main's own probe (remote agents record their `prb_…` id). */
export const LOCAL_PROBE = 'local';

/** The check spec of a monitor. @throws AppError 400 when the monitor's URL is unusable (never for stored monitors). */
export function checkSpec(m: Monitor): CheckSpec {
  return { protocol: m.protocol, target: probeTarget(m), timeoutSeconds: m.timeoutSeconds, settings: m.settings };
}

/**
 * A check as handed to an agent (the poll answer): which monitor, how to probe it, how often, and
 * when its next check is due (epoch ms; null = the agent spreads first checks itself) so a region
 * taken over from another probe continues that probe's rhythm instead of checking twice.
 */
export interface AssignedCheck {
  monitor: string;
  frequencySeconds: number;
  nextDueAt: number | null;
  spec: CheckSpec;
}

/** An agent as the main knows it. Times are epoch ms. */
export interface AgentInfo {
  /** `prb_…`, chosen by the agent at start (a restarted agent is a new one). */
  id: string;
  name: string;
  region: Region;
  version: string;
  sourceAddress: string | null;
  firstSeen: number;
  lastSeen: number;
}

/** A probe as `GET /v1/probes` lists it. */
export interface ProbeListing extends AgentInfo {
  status: 'online' | 'offline';
  /** A poll of the agent is open right now (it is connected). */
  connected: boolean;
  /** Monitors this probe checks now. */
  monitors: number;
  /** Results received over the last minute, per second. */
  checksPerSecond: number;
  /** Results the agent dropped because its buffer was full while the main was unreachable. */
  droppedResults: number;
}

/**
 * Which probe serves which of a monitor's regions (CONTRACT.md "Monitors": a region with no remote
 * probe attached is served by the local probe; each check runs once per region that has a probe of
 * its own, and once on the local probe for all the rest).
 * - `agents`: region → the agent checking it (one per region even when several agents serve it);
 * - `localRegion`: the region name the local probe's results are recorded under (the main's own
 *   region when it is one of the rest, else the first of the rest), or null when every region has
 *   an agent;
 * - `locations`: the regions checking the monitor, in the monitor's order, local last: what
 *   confirmation counts.
 */
export interface ProbePlan {
  agents: Map<Region, string>;
  localRegion: Region | null;
  locations: Region[];
}

/** FNV-1a of a string, unsigned 32 bits. */
function fnv(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

/**
 * Rendezvous (highest-random-weight) choice of the agent that checks a monitor in a region: stable
 * while the region's agents stay, and only the monitors of an agent that leaves move.
 * @returns an id of `agentIds`, or undefined when it is empty
 */
export function pickAgent(monitorUuid: string, agentIds: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestScore = -1;
  for (const id of agentIds) {
    const score = fnv(`${monitorUuid}/${id}`);
    if (score > bestScore || (score === bestScore && best !== undefined && id < best)) {
      best = id;
      bestScore = score;
    }
  }
  return best;
}

/** The plan of a monitor given the online agents of each region (see {@link ProbePlan}). */
export function planProbes(monitor: Pick<Monitor, 'uuid' | 'regions'>, online: ReadonlyMap<Region, ReadonlySet<string>>, mainRegion: Region): ProbePlan {
  const agents = new Map<Region, string>();
  const rest: Region[] = [];
  for (const r of monitor.regions) {
    const id = pickAgent(monitor.uuid, online.get(r) ?? []);
    if (id) agents.set(r, id);
    else rest.push(r);
  }
  const localRegion = rest.length === 0 ? null : rest.includes(mainRegion) ? mainRegion : rest[0]!;
  return { agents, localRegion, locations: localRegion ? [...agents.keys(), localRegion] : [...agents.keys()] };
}

/** One result as an agent pushes it. `at` is epoch ms of the probe start; `latencyMs` ms. */
export const agentResultSchema = z.object({
  monitor: z.string().min(1).max(64),
  at: z.number().int().nonnegative(),
  ok: z.boolean(),
  latencyMs: z.number().int().nonnegative(),
  statusCode: z.number().int().min(0).max(999),
  reason: z.string().max(1000).nullable(),
  sslExpirationDays: z.number().int().nullable().optional(),
  degraded: z.boolean().optional(),
});
export type AgentResult = z.infer<typeof agentResultSchema>;

/** Agent ids: `prb_` + 22 base62 characters, made by the agent. */
export const AGENT_ID = /^prb_[0-9A-Za-z]{22}$/;

const agentHello = {
  agent: z.string().regex(AGENT_ID, 'must be prb_ followed by 22 letters or digits'),
  region: z.enum(REGIONS, { error: `must be one of ${REGIONS.join(', ')}` }),
};

/** `POST /v1/probes/poll` body: who polls and which assignment it holds. */
export const pollBodySchema = z.object({
  ...agentHello,
  name: z.string().min(1).max(200),
  version: z.string().min(1).max(100),
  sourceAddress: z.string().max(100).nullable().optional(),
  /** The `assignment` token of the last answer, or null on the first poll. */
  assignment: z.string().max(200).nullable(),
  /** Results the agent dropped so far (its buffer was full). */
  droppedResults: z.number().int().nonnegative().optional(),
});
export type PollBody = z.infer<typeof pollBodySchema>;

/** `POST /v1/probes/results` body: one batch; `batch` is unique per agent and kept on retries. */
export const resultsBodySchema = z.object({
  ...agentHello,
  batch: z.string().min(1).max(100),
  results: z.array(agentResultSchema).max(10_000),
});
export type ResultsBody = z.infer<typeof resultsBodySchema>;

/** A poll answer: the full assignment when it changed (else null), and monitors to re-check now. */
export interface PollAnswer {
  assignment: string;
  checks: AssignedCheck[] | null;
  rechecks: string[];
}
