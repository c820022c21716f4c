import type { MiddlewareHandler } from 'hono';
import { AppError } from '../lib/errors.ts';
import type { AppEnv } from './context.ts';

/**
 * Remote agents may talk to any instance of a cluster (issue 22: they reconnect to whichever answers
 * behind the load balancer), but only the leader plans which probe checks what, holds the agents' long
 * polls and confirms their results with its own checks. So a follower forwards the agent routes
 * (`POST /v1/probes/poll`, `POST /v1/probes/results`) and the probes listing (`GET /v1/probes`) to
 * the leader, token and body unchanged (the leader authenticates again), and relays the answer.
 * The leader, a single instance, or a follower that knows no leader right now answers itself.
 * @param leaderUrl the leader's base URL when another instance leads, else null
 * @param holdMs longest a forwarded request may take (the poll hold plus a margin)
 * @throws AppError 503 `cluster.leader_unreachable` when the leader does not answer (the agent retries)
 */
export function forwardToLeader(leaderUrl: () => string | null, holdMs: number): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const base = leaderUrl();
    if (!base) return next();
    const body = c.req.method === 'GET' ? undefined : await c.req.text();
    let res: Response;
    try {
      res = await fetch(base + c.req.path, {
        method: c.req.method,
        headers: { authorization: c.req.header('authorization') ?? '', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body,
        // The agent gone (its poll aborted) ends the forwarded poll too.
        signal: AbortSignal.any([c.req.raw.signal, AbortSignal.timeout(holdMs)]),
      });
    } catch (e) {
      throw new AppError(503, 'cluster.leader_unreachable', `the leader (${base}) did not answer (${(e as Error).message}); retry`);
    }
    return new Response(await res.arrayBuffer(), { status: res.status, headers: { 'content-type': res.headers.get('content-type') ?? 'application/json' } });
  };
}
