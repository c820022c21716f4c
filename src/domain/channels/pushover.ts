import { z } from 'zod';
import { apiBase, channelSchema, secret } from './common.ts';

/** Pushover: `POST /1/messages.json` with an application token and a user (or group) key. */
export const schema = channelSchema('pushover', {
  user_key: secret,
  app_token: secret,
  device: z.string().min(1).optional().describe('Only this device of the user; default all.'),
  priority: z.number().int().min(-2).max(1).default(1).describe('Priority of alerts, -2 to 1 (2, emergency, needs receipts Pharos does not poll); recoveries 0.'),
  sound: z.string().min(1).optional(),
  api_url: apiBase('https://api.pushover.net'),
});
/**
 * Settings paths stored sealed and shown as `***` (issue 32; domain/integration-settings.ts): the user key and the application token.
 * Dotted for nested fields, `*` for every value of a record.
 */
export const secretFields = ['user_key', 'app_token'] as const;
export const lifecycle = false;
