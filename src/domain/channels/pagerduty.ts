import { apiBase, channelSchema, secret } from './common.ts';

/**
 * PagerDuty Events API v2: trigger on alert, acknowledge when acknowledged in Pharos, resolve on
 * recovery, all with the outage's uuid as `dedup_key`.
 */
export const schema = channelSchema('pagerduty', {
  routing_key: secret.describe('The integration (routing) key of an Events API v2 integration.'),
  api_url: apiBase('https://events.pagerduty.com'),
});
/**
 * Settings paths stored sealed and shown as `***` (issue 32; domain/integration-settings.ts): the routing key.
 * Dotted for nested fields, `*` for every value of a record.
 */
export const secretFields = ['routing_key'] as const;
/** Receives acknowledgements (the outbox queues them for this channel). */
export const lifecycle = true;
