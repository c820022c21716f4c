/**
 * The notification channel plugin interface (house rule 1, after Gatus's alerting providers):
 * one file per channel kind under `alerting/channels/`, one line in the registry `index.ts`, and the
 * same contract tests for every kind. A channel only delivers a message; what to send and when
 * (escalation, retries, the outbox) is decided by the alerting core.
 */

export type { AlertKind, AlertMessage, AlertOutage } from '../../domain/alert.ts';
import type { AlertMessage } from '../../domain/alert.ts';

/**
 * A failed delivery. `permanent` errors are not retried (a 4xx answer other than 408/429, an SMTP
 * 5xx rejection, a malformed address); others (network errors, timeouts, 5xx, 429, SMTP 4xx) are.
 */
export class ChannelError extends Error {
  /**
   * @param message what went wrong, for logs; never contains a secret (URL tokens, passwords)
   * @param permanent true when retrying cannot help
   */
  constructor(message: string, readonly permanent: boolean) {
    super(message);
    this.name = 'ChannelError';
  }
}

/** A configured channel instance. */
export interface Channel {
  /** The channel's name from config.yaml (what escalation policy steps reference). */
  readonly name: string;
  /**
   * Delivers one message.
   * @throws ChannelError on failure (any other error counts as retryable)
   */
  send(message: AlertMessage): Promise<void>;
  /** Releases pooled connections. */
  close(): Promise<void>;
}
