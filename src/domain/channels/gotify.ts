import { z } from 'zod';
import { channelSchema, httpUrl, secret } from './common.ts';

/** A Gotify server: `POST /message` with an application token. */
export const schema = channelSchema('gotify', {
  server: httpUrl,
  token: secret.describe('Application token (header `X-Gotify-Key`).'),
  priority: z.number().int().min(0).max(10).default(8).describe('Priority of alerts (0-10); recoveries use half of it.'),
});
/**
 * Settings paths stored sealed and shown as `***` (issue 32; domain/integration-settings.ts): the application token.
 * Dotted for nested fields, `*` for every value of a record.
 */
export const secretFields = ['token'] as const;
export const lifecycle = false;
