import { z } from 'zod';
import { apiBase, channelSchema } from './common.ts';

/** An ntfy topic (ntfy.sh or a self-hosted server), published as JSON to the server's root. */
export const schema = channelSchema('ntfy', {
  server: apiBase('https://ntfy.sh'),
  topic: z.string().regex(/^[-_A-Za-z0-9]{1,64}$/, 'must be 1-64 letters, digits, - _'),
  priority: z.number().int().min(1).max(5).default(4).describe('Priority of alerts, 1 (min) to 5 (max); recoveries go out at 3 (default).'),
  tags: z.array(z.string().min(1)).default([]).describe('Tags (emoji short codes such as `rotating_light` become icons).'),
  token: z.string().min(1).optional().describe('Access token (`Authorization: Bearer`), for protected topics.'),
});
/**
 * Settings paths stored sealed and shown as `***` (issue 32; domain/integration-settings.ts): the access token.
 * Dotted for nested fields, `*` for every value of a record.
 */
export const secretFields = ['token'] as const;
export const lifecycle = false;
