/** Status-page subscribers (pure data): what the store hands the core and the views. */

/** Channels a status-page visitor can subscribe with (API.md §2.9 `subscribe`). */
export type SubscriberChannel = 'email' | 'slack' | 'teams' | 'sms';

/** A subscriber of a status page. Times are epoch ms. */
export interface Subscriber {
  id: number;
  uuid: string;
  statuspageId: number;
  channel: SubscriberChannel;
  /** Email address (email), incoming-webhook URL (slack, teams) or E.164 phone number (sms). */
  target: string;
  /** When the double opt-in was confirmed (webhook subscriptions are confirmed at once), or null. */
  confirmedAt: number | null;
  /** Language chosen when an operator added it through the API (`en`, …), or null: the page's first. */
  language: string | null;
  /** When the last confirmation mail was queued (pending email subscribers), or null. */
  confirmSentAt: number | null;
  createdAt: number;
}
