/**
 * Descriptor exhaustion, shared by the probes and the wheel (issue 21; src/engine/connections.ts has the bound): a check opens a fresh connection and closes it after
 * (no keep-alive socket is kept between checks — a check every 10–300 s gains nothing from one, and
 * 10,000 distinct origins would hold 10,000 sockets), and the number of checks in flight is bounded
 * by the file descriptors this process may open (RLIMIT_NOFILE), so Pharos queues checks instead of
 * failing them with EMFILE. Running out of descriptors is Pharos's fault, never the target's: probes
 * report it with {@link DESCRIPTORS_EXHAUSTED_REASON} and the wheel retries such checks.
 */

/** The reason probes give when the socket could not be made for lack of file descriptors (EMFILE/ENFILE). */
export const DESCRIPTORS_EXHAUSTED_REASON = 'Pharos ran out of file descriptors';

/** True when `err` (or its `cause` chain, as undici wraps socket errors) is EMFILE or ENFILE. */
export function isDescriptorExhaustion(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (code === 'EMFILE' || code === 'ENFILE') return true;
  }
  return false;
}

/** True when a probe's failure reason says Pharos (not the target) ran out of descriptors. */
export function isDescriptorExhaustionReason(reason: string | null | undefined): boolean {
  return reason != null && reason.startsWith(DESCRIPTORS_EXHAUSTED_REASON);
}

