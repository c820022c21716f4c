/**
 * What one probe run observed (house rule 2: probes report outcomes, they never decide state).
 */
export interface CheckOutcome {
  /** True when the check passed every rule of its protocol (CONTRACT.md "Monitors": when a check is up). */
  ok: boolean;
  /** Wall time of the whole check, ms (HTTP: until the body was read; TCP: until connected; ICMP: round trip). */
  latencyMs: number;
  /** HTTP status of the final response; 0 when there was no HTTP response (TCP, ICMP, network errors). */
  statusCode: number;
  /** Why it failed, for a person (`Connection refused`, `Expected 2xx, got 503`); null when ok. */
  reason: string | null;
  /** Days until the served TLS certificate expires (HTTPS and tls monitors), else null. May be negative. */
  sslExpirationDays?: number | null;
  /** The check passed but was slower than its degraded threshold (http `degraded_after_ms`): shown as "Degraded performance". */
  degraded?: boolean;
  /** Optional phase timings in ms (HTTP: connect incl. TLS, time to first byte). */
  timings?: { connectMs?: number; ttfbMs?: number };
}

/**
 * One stored check result: the outcome plus where, by which probe and when it ran. `at` is UTC epoch
 * ms of the probe start; `region` the region it ran for; `probe` `local` or the agent's `prb_…` id.
 */
export interface CheckResult extends CheckOutcome {
  monitorId: number;
  at: number;
  region: string;
  probe: string;
}

/** One stored result as the console shows it (`probe` is `local` for the main's own probe). */
export interface StoredResult {
  at: number;
  region: string;
  probe: string;
  ok: number;
  latency_ms: number;
  status_code: number;
  reason: string | null;
}
