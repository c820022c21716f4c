/**
 * The notification channel plugin interface (house rule 1, after Gatus's alerting providers):
 * one folder per channel kind under `alerting/channels/<type>/` (rendering and sending; the config
 * schema is `domain/channels/<type>.ts`), one line in the registry `index.ts`, and the contract
 * suite (test/unit/alerting/channels.test.ts) run over that registry. A channel only delivers a
 * message; what to send and when (escalation, retries, the outbox) is decided by the alerting core.
 */

export type { AlertKind, AlertMessage, AlertOutage } from '../../domain/alert.ts';
import type { AlertMessage } from '../../domain/alert.ts';
import type { ChannelConfigOf, ChannelType } from '../../domain/channels/index.ts';

/**
 * A failed delivery. `permanent` errors are not retried (a 4xx answer other than 408/429, an SMTP
 * 5xx rejection, a malformed address); others (network errors, timeouts, 5xx, 429, SMTP 4xx) are.
 */
export class ChannelError extends Error {
  /**
   * @param message what went wrong, for logs; never contains a secret (URL tokens, passwords)
   * @param permanent true when retrying cannot help
   * @param answer the provider's answer, when there was one (status and the start of its body)
   */
  constructor(message: string, readonly permanent: boolean, readonly answer: ProviderAnswer | null = null) {
    super(message);
    this.name = 'ChannelError';
  }
}

/** One delivery of one outbox row. */
export interface Delivery {
  /**
   * The idempotency id of this delivery (`dlv_…`): the same on every attempt of the row, different
   * for every row. HTTP channels send it as `Idempotency-Key`; the webhook also as `deliveryId`.
   */
  deliveryId: string;
}

/** What the provider said: HTTP status (or SMTP reply code, or apprise's exit code) and the start of its answer. */
export interface ProviderAnswer {
  status: number;
  /** At most 2,000 characters of the body (or the SMTP reply line). */
  body: string;
}

/** A configured channel instance. */
export interface Channel {
  /** The channel's name from config.yaml (what escalation policy steps reference). */
  readonly name: string;
  /**
   * Delivers one message. @returns the provider's (last) answer
   * @throws ChannelError on failure (any other error counts as retryable)
   */
  send(message: AlertMessage, delivery: Delivery): Promise<ProviderAnswer>;
  /** Releases pooled connections. */
  close(): Promise<void>;
}

/**
 * Which receiver a channel kind talks to (the contract suite starts one of each): `process` is a
 * local program (the apprise CLI) that the contract points at the HTTP receiver.
 */
export type Transport = 'http' | 'smtp' | 'process';

/** One channel kind: its sender, and a sample config pointing at a receiver (contract suite, docs). */
export interface ChannelPlugin<K extends ChannelType> {
  /** Builds a channel from its validated config; connects nothing until the first send. */
  create(config: ChannelConfigOf<K>): Channel;
  transport: Transport;
  /**
   * A config of this kind named `name` whose API base is `base` (`http://127.0.0.1:PORT` or, for
   * email, `smtp://127.0.0.1:PORT`; a `process` kind reaches the HTTP one), with secrets in every
   * place the kind has one.
   */
  example(name: string, base: string): ChannelConfigOf<K>;
  /** Strings of {@link example} that must never appear in an error message. */
  secrets: readonly string[];
}
