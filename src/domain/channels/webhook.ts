import Mustache from 'mustache';
import { z } from 'zod';
import { channelSchema, httpUrl } from './common.ts';

/**
 * Checks that a body template parses as Mustache (variables and sections only: Mustache has no
 * expressions, and Pharos passes no partials and no functions, so a template cannot run code).
 */
function parses(template: string): boolean {
  try {
    Mustache.parse(template);
    return true;
  } catch {
    return false;
  }
}

/** A JSON POST to any URL, optionally signed with HMAC-SHA256 (header `X-Pharos-Signature`). */
export const schema = channelSchema('webhook', {
  url: httpUrl,
  secret: z.string().min(1).optional().describe('HMAC-SHA256 key; when set, requests carry `X-Pharos-Signature: sha256=<hex>` over the raw body.'),
  headers: z.record(z.string(), z.string()).default({}).describe('Extra request headers (e.g. an Authorization header, usually from `${ENV}`).'),
  body_template: z.string().min(1).refine(parses, 'must be a valid Mustache template (variables and sections only)').optional().describe('Mustache body template replacing the JSON payload (docs/operations.md lists the variables).'),
  content_type: z.string().min(1).optional().describe('Content type of a templated body (default application/json: values escaped as JSON string content).'),
});

/**
 * Settings paths stored sealed and shown as `***` (issue 32; domain/integration-settings.ts): the URL may carry a key, `secret` is the HMAC key, header values are often credentials.
 * Dotted for nested fields, `*` for every value of a record.
 */
export const secretFields = ['url', 'secret', 'headers.*'] as const;
/**
 * Follows the outage's lifecycle: a webhook gets alerts, `outage.acknowledged` when someone
 * acknowledges (docs/api.md "Webhook payload"), and recoveries; its "send test" sends the recovery too.
 */
export const lifecycle = true;
