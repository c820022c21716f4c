import type { z } from 'zod';
import type { Core } from '../../core/index.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Principal } from '../../domain/user.ts';

/** What a tool runs with: the core services, the clock and the caller (its token's user and scope). */
export interface ToolContext {
  core: Core;
  clock: Clock;
  principal: Principal;
}

/**
 * One MCP tool (docs/api.md "MCP (/v1/mcp)"): its name, description and arguments as the hosted
 * service declares them (hyperping-go testdata/mcp_tools_list.json), whether it writes (a write
 * needs a write token), and `run`, which answers the value sent as JSON in `content[0].text`
 * (hyperping-go mcp_transport.go parses that text). `run` may throw an AppError: the SDK answers it
 * as a tool result with `isError: true` and the message as its text.
 */
export interface ToolDef {
  name: string;
  description: string;
  write: boolean;
  input: Record<string, z.ZodType>;
  run(args: Record<string, unknown>, ctx: ToolContext): Promise<unknown>;
}

/** Declares a tool with typed arguments (the input shape's parsed type). */
export function tool<S extends Record<string, z.ZodType>>(def: {
  name: string;
  description: string;
  write?: boolean;
  input: S;
  run(args: { [K in keyof S]: z.infer<S[K]> }, ctx: ToolContext): Promise<unknown>;
}): ToolDef {
  return { name: def.name, description: def.description, write: def.write ?? false, input: def.input, run: def.run as ToolDef['run'] };
}

const DAY_MS = 86_400_000;

/**
 * The window of the windowed tools (`from`, `to` as ISO 8601; hyperping-go mcp_client.go
 * buildWindowArgs): default the last 30 days ending now, as the hosted service's tools.
 * @throws Error naming `from`/`to` when not a date or out of order
 */
export function windowArgs(a: { from?: string | undefined; to?: string | undefined }, now: number): { from: number; to: number } {
  const parse = (name: string, s: string | undefined): number | undefined => {
    if (s === undefined) return undefined;
    const ms = Date.parse(s);
    if (!Number.isFinite(ms)) throw new Error(`${name}: must be an ISO 8601 date-time such as 2026-03-01T00:00:00Z`);
    return ms;
  };
  const to = parse('to', a.to) ?? now;
  const from = parse('from', a.from) ?? to - 30 * DAY_MS;
  if (from >= to) throw new Error('from: must be before to');
  return { from, to };
}

/** Bucket length (ms) of `resolution`: hour, day (default), week; month counts as 30 days. */
export function resolutionMs(resolution: string | undefined): number {
  return resolution === 'hour' ? 3_600_000 : resolution === 'week' ? 7 * DAY_MS : resolution === 'month' ? 30 * DAY_MS : DAY_MS;
}

/** At most this many buckets per answer; a finer resolution over a long window is coarsened to fit. */
export const MAX_BUCKETS = 400;

/** The bucket length (ms) used over [from, to): `step`, or longer so that at most `max` buckets fit. */
export function bucketSize(from: number, to: number, step: number, max = MAX_BUCKETS): number {
  return Math.max(step, Math.ceil((to - from) / max));
}

/** Buckets over [from, to): `step` ms apart (coarsened to at most `max`, default {@link MAX_BUCKETS}); the last may be shorter. */
export function buckets(from: number, to: number, step: number, max = MAX_BUCKETS): Array<{ start: number; end: number }> {
  const size = bucketSize(from, to, step, max);
  const out: Array<{ start: number; end: number }> = [];
  for (let t = from; t < to; t += size) out.push({ start: t, end: Math.min(to, t + size) });
  return out;
}

/** Monitors named by `monitor_uuids` (all when empty or left out), in the list's order. */
export function pick<T extends { uuid: string }>(all: T[], uuids: readonly string[] | undefined): T[] {
  if (!uuids || uuids.length === 0) return all;
  const wanted = new Set(uuids);
  return all.filter((m) => wanted.has(m.uuid));
}
