import type { z } from 'zod';
import type { CheckOutcome } from '../domain/check.ts';
import type { Protocol } from './index.ts';

/**
 * A protocol plugin, definition half (pure: no I/O, importable by every layer like domain/).
 * The check itself lives in the folder's `probe.ts` and is reached only through `loadProbe()`
 * (a lazy `import()`), so the definitions stay free of sockets and drivers, and a driver
 * (pg, mysql2, grpc-js, …) is loaded only when a monitor of its protocol is first checked.
 *
 * Settings are stored as a JSON object whose keys are the protocol's API fields (snake_case, units
 * in the names), so the body, the stored JSON and the response share one shape.
 */
export interface ProtocolDefinition<F extends z.ZodRawShape = z.ZodRawShape> {
  /**
   * The API body fields this protocol takes beyond the common ones (name, url, protocol, port,
   * check_frequency, regions, paused, alerts_wait, escalation_policy, timeout). Not optional here:
   * the body makes them optional, the stored JSON has every one. A field name two protocols share
   * must be the same schema object (the registry refuses otherwise).
   */
  readonly fields: F;
  /** Settings of a new monitor of this protocol, one value per field. */
  readonly defaults: z.output<z.ZodObject<F>>;
  /** One line for the docs and the OpenAPI description: what `url` means for this protocol. */
  readonly urlMeaning: string;
  /** The protocol's name for people (console form and monitor page), e.g. "DNS record"; default: the name in capitals. */
  readonly label?: string;
  /** The fields a person sets in the console's form and reads on the monitor page (default: every field); others keep their stored values. */
  readonly formFields?: readonly (keyof F & string)[];
  /**
   * Where a check goes, from the common `url` and `port`; validates `url` for the protocol.
   * @throws AppError 400 (`url: …`) when the url does not fit
   */
  target(url: string, port: number | null): ProbeTarget;
  /** Rules across this protocol's settings. @throws AppError 400 naming the field */
  validate?(settings: z.output<z.ZodObject<F>>): void;
  /**
   * The protocol's secret fields and how each is masked (src/protocols/secrets.ts): `header_values`
   * (a `[{name, value}]` list: every value), `url_password` (a URL: its password), `value` (the whole
   * value). Every reader sees `***` instead, and a writer sends `***` back to keep it. The common
   * `url`'s password is secret for every protocol without saying so here. A field two protocols
   * share must be declared alike (the registry refuses otherwise).
   */
  readonly secrets?: { readonly [K in keyof F & string]?: SecretKind };
  /** The settings as the API response shows them (default: as stored). */
  show?(settings: z.output<z.ZodObject<F>>): Record<string, unknown>;
  /** Loads the check (engine half). */
  loadProbe(): Promise<ProbeFactory>;
}

/** How a secret protocol field is masked: every header value of a list, a URL's password, or the whole value. */
export type SecretKind = 'header_values' | 'url_password' | 'value';

/** Where a check goes: for `http` the URL itself; for others a host (and a port) or a connection URL. */
export interface ProbeTarget {
  url: string;
  host: string;
  port: number | null;
}

/** What a probe needs to run one check: the protocol, the resolved target, the timeout and the protocol's settings. */
export interface CheckSpec {
  protocol: Protocol;
  target: ProbeTarget;
  /** Seconds. */
  timeoutSeconds: number;
  /** The protocol's settings (its API fields), as validated by its definition. */
  settings: Record<string, unknown>;
}

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
  /**
   * false: no HTTP check keeps its connection for the next one, even on a busy origin (tests of
   * what happens per connection). Default true (src/protocols/http/dispatchers.ts KeepAlivePolicy).
   */
  httpKeepAlive?: boolean | undefined;
  /**
   * The stored states of monitors by uuid, in order (undefined: no such monitor), for the `group`
   * protocol (issue 36); the server's probe has it, an agent's does not.
   */
  monitorStates?: ((uuids: readonly string[]) => Promise<Array<{ name: string; status: 'up' | 'down'; paused: boolean } | undefined>>) | undefined;
}

/**
 * One protocol's checker (house rule 1). `check` never throws and never decides monitor state
 * (house rule 2): every failure, including DNS errors and timeouts after `spec.timeoutSeconds`,
 * comes back as `{ok: false, reason}`.
 */
export interface Probe {
  check(spec: CheckSpec): Promise<CheckOutcome>;
  /** Releases sockets, pools and clients. */
  close(): Promise<void>;
}

/** Builds a probe from the shared options. */
export type ProbeFactory = (options: ProbeOptions) => Probe;
