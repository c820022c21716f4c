import { z } from 'zod';
import { apiBase, channelSchema, secret } from './common.ts';

/** Opsgenie Alert API: create, acknowledge and close an alert by alias (the outage's uuid). */
export const schema = channelSchema('opsgenie', {
  api_key: secret.describe('An API integration key (`Authorization: GenieKey …`).'),
  api_url: apiBase('https://api.opsgenie.com').describe('`https://api.eu.opsgenie.com` for EU accounts.'),
  teams: z.array(z.string().min(1)).default([]).describe('Responders (teams by name), optional; the integration\'s own routing applies otherwise.'),
});
/**
 * Settings paths stored sealed and shown as `***` (issue 32; domain/integration-settings.ts): the API key.
 * Dotted for nested fields, `*` for every value of a record.
 */
export const secretFields = ['api_key'] as const;
/** Receives acknowledgements (the outbox queues them for this channel). */
export const lifecycle = true;
