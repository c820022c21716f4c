import type { CheckOutcome } from '../../domain/check.ts';
import type { CheckSpec } from '../../domain/probe.ts';

/** What a probe needs to run one check (the domain's {@link CheckSpec}). */
export type ProbeSpec = CheckSpec;

/** Options shared by every probe. */
export interface ProbeOptions {
  /** Local address outgoing checks are made from (config `probe.source_address`); undefined = the OS picks. */
  sourceAddress?: string | undefined;
  /** User-Agent header of HTTP checks. */
  userAgent: string;
  /**
   * Receives HTTP phase timings, ms: `connect` once per new connection (TCP, plus TLS for https),
   * `ttfb` (request sent → response headers) and `body` (headers → body read) once per check.
   */
  observePhase?: ((phase: 'connect' | 'ttfb' | 'body', ms: number) => void) | undefined;
}

/**
 * One protocol's checker (house rule 1: a probe is one file plus one line in the registry).
 * `check` never throws and never decides monitor state (house rule 2): every failure, including
 * DNS errors and timeouts after `spec.timeoutSeconds`, comes back as `{ok: false, reason}`.
 */
export interface Probe {
  check(spec: ProbeSpec): Promise<CheckOutcome>;
  /** Releases sockets and pools. */
  close(): Promise<void>;
}

/** Builds a probe from the shared options. */
export type ProbeFactory = (options: ProbeOptions) => Probe;
