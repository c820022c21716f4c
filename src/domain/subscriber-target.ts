import { ipLiteralOf, isPublicAddress } from '../lib/ip-ranges.ts';

/** Webhook kinds a status-page visitor may subscribe with. */
export type SubscriberWebhookKind = 'slack' | 'teams';

/**
 * Hosts of the providers' incoming webhooks (`*.domain` = any subdomain of it): Slack's (and
 * Slack GovSlack's) `hooks.` hosts; Teams' connector hosts (`<tenant>.webhook.office.com`, the
 * older outlook.office(365).com) and the Power Automate Workflows hosts that replace them
 * (`prod-NN.<region>.logic.azure.com`, `*.environment.api.powerplatform.com`).
 */
export const PROVIDER_WEBHOOK_HOSTS: Readonly<Record<SubscriberWebhookKind, readonly string[]>> = {
  slack: ['hooks.slack.com', 'hooks.slack-gov.com'],
  teams: ['*.webhook.office.com', 'outlook.office.com', 'outlook.office365.com', '*.logic.azure.com', '*.api.powerplatform.com'],
};

/** What the operator allows beyond the providers (config `status_pages.subscriptions`). */
export interface WebhookTargetPolicy {
  /** Extra hosts: `host`, `*.domain` or `*` (any host). */
  allowedHosts: readonly string[];
  /** Turns every check off (http, any host, any address): labs and tests only. */
  allowPrivateTargets: boolean;
}

/** True when `host` (lower case, no trailing dot) matches `pattern` (`*`, `*.domain` or a host). */
export function hostMatches(host: string, pattern: string): boolean {
  const p = pattern.toLowerCase().replace(/\.$/, '');
  if (p === '*') return true;
  if (p.startsWith('*.')) return host.endsWith(p.slice(1)) && host.length > p.length - 1;
  return host === p;
}

/**
 * Why a visitor's webhook URL may not be used, or null when it may (docs/api.md "Hardening
 * (security)"): it must parse, be `https`, carry no credentials, name a provider's host or one the
 * operator allows, and when the host is an IP literal (any numeric form, normalized by the URL
 * parser: `0x7f000001`, `2130706433`, `[::ffff:127.0.0.1]`) a public one. Names are checked again
 * on the resolved address at connect time (DNS rebinding), by the connector that sends.
 * @returns the rule broken, phrased to follow the field name (`target: …`)
 */
export function webhookTargetProblem(kind: SubscriberWebhookKind, target: string, policy: WebhookTargetPolicy): string | null {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return 'must be an https webhook URL';
  }
  if (policy.allowPrivateTargets) return url.protocol === 'https:' || url.protocol === 'http:' ? null : 'must be an http(s) webhook URL';
  if (url.protocol !== 'https:') return 'must be an https webhook URL';
  if (url.username || url.password) return 'must not carry a user name or password';
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  const literal = ipLiteralOf(host);
  if (literal !== null && !isPublicAddress(literal)) return 'must not point at a loopback, private, link-local or reserved address';
  const allowed = [...PROVIDER_WEBHOOK_HOSTS[kind], ...policy.allowedHosts];
  if (!allowed.some((p) => hostMatches(host, p))) {
    return `must be a ${kind === 'slack' ? 'Slack' : 'Teams'} incoming-webhook URL (${PROVIDER_WEBHOOK_HOSTS[kind].join(', ')}${policy.allowedHosts.length ? `, ${policy.allowedHosts.join(', ')}` : ''})`;
  }
  return null;
}
