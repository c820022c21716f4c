import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { CheckOutcome } from '../../domain/check.ts';
import { describeNetworkError } from '../errors.ts';
import type { ProbeFactory } from '../types.ts';

/** The part of Docker's `ContainerInspectResponse` (Engine API v1.41+, also Podman's compat API) a check reads. */
interface Inspect {
  State?: { Status?: string; Running?: boolean; Paused?: boolean; Restarting?: boolean; ExitCode?: number; Error?: string; Health?: { Status?: string; Log?: Array<{ ExitCode?: number; Output?: string }> } };
}

/** Bodies are read up to this many bytes (an inspect answer is a few KiB). */
const MAX_BODY = 1024 * 1024;

/**
 * The verdict on one inspect answer: up while running (a paused container is down: it serves
 * nothing) and its health check, if any, is not `unhealthy` (`starting` counts as up, like a
 * container without a health check). Reasons: `container exited (137)`, `container paused`,
 * `container restarting`, `container unhealthy: <the last health check's output>`.
 */
export function judgeContainer(body: Inspect): string | null {
  const st = body.State ?? {};
  if (st.Paused) return 'container paused';
  if (st.Restarting) return 'container restarting';
  if (!st.Running) {
    const status = st.Status && st.Status !== 'running' ? st.Status : 'not running';
    const why = st.Error ? `: ${st.Error}` : '';
    return `container ${status}${status === 'exited' && typeof st.ExitCode === 'number' ? ` (${st.ExitCode})` : ''}${why}`;
  }
  if (st.Health?.Status === 'unhealthy') {
    const last = st.Health.Log?.at(-1)?.Output?.trim().replace(/\s+/g, ' ').slice(0, 200);
    return last ? `container unhealthy: ${last}` : 'container unhealthy';
  }
  return null;
}

/**
 * Docker container checks: one `GET /containers/{name}/json` to the Engine API per check, over the
 * unix socket (`unix:///var/run/docker.sock`) or TCP (`tcp://` = plain HTTP, `https://` with the
 * system's roots; no client certificates), from `probe.source_address` for TCP when set, within the
 * check's timeout. A 404 is `No such container: web` (Docker's own message); other non-2xx answers
 * are `Docker API answered 500: <its message>`.
 */
export const dockerProbe: ProbeFactory = (options) => ({
  async check(spec): Promise<CheckOutcome> {
    const started = performance.now();
    const latency = () => Math.round(performance.now() - started);
    const ms = spec.timeoutSeconds * 1000;
    const name = encodeURIComponent(String(spec.settings.docker_container ?? ''));
    const raw = spec.target.url.trim();
    const path = `/containers/${name}/json`;
    try {
      const res = await new Promise<{ status: number; text: string }>((resolve, reject) => {
        const onRes = (r: IncomingMessage) => {
          const chunks: Buffer[] = [];
          let size = 0;
          r.on('data', (c: Buffer) => {
            size += c.length;
            if (size <= MAX_BODY) chunks.push(c);
          });
          r.on('end', () => resolve({ status: r.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
          r.on('error', reject);
        };
        const common = { method: 'GET', path, headers: { 'user-agent': options.userAgent, accept: 'application/json', host: 'docker' }, signal: AbortSignal.timeout(ms) };
        let req;
        if (raw.startsWith('unix://')) req = httpRequest({ ...common, socketPath: raw.slice('unix://'.length) }, onRes);
        else {
          const u = new URL(raw);
          const at = { ...common, host: spec.target.host, port: spec.target.port ?? undefined, headers: { ...common.headers, host: u.host }, ...(options.sourceAddress ? { localAddress: options.sourceAddress } : {}) };
          req = u.protocol === 'https:' ? httpsRequest({ ...at, servername: spec.target.host }, onRes) : httpRequest(at, onRes);
        }
        req.on('error', reject);
        req.end();
      });
      let body: unknown = null;
      try {
        body = JSON.parse(res.text);
      } catch {
        body = null; // not JSON: the status line speaks for itself below
      }
      const message = typeof (body as { message?: unknown })?.message === 'string' ? (body as { message: string }).message : res.text.trim().slice(0, 200);
      if (res.status === 404) return { ok: false, latencyMs: latency(), statusCode: 404, reason: message || `No such container: ${decodeURIComponent(name)}` };
      if (res.status < 200 || res.status >= 300) return { ok: false, latencyMs: latency(), statusCode: res.status, reason: `Docker API answered ${res.status}${message ? `: ${message}` : ''}` };
      if (!body || typeof body !== 'object') return { ok: false, latencyMs: latency(), statusCode: res.status, reason: 'Docker API answered something other than JSON' };
      const reason = judgeContainer(body as Inspect);
      return { ok: reason === null, latencyMs: latency(), statusCode: res.status, reason };
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === 'ENOENT' && raw.startsWith('unix://')) return { ok: false, latencyMs: latency(), statusCode: 0, reason: `No socket at ${raw.slice('unix://'.length)}` };
      if (code === 'EACCES') return { ok: false, latencyMs: latency(), statusCode: 0, reason: `Permission denied on ${raw.slice('unix://'.length)} (add the pharos user to the docker group)` };
      return { ok: false, latencyMs: latency(), statusCode: 0, reason: describeNetworkError(e, spec.target.host, spec.timeoutSeconds) };
    }
  },
  async close() {},
});
