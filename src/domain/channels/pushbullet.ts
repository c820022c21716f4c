import { z } from 'zod';
import { apiBase, channelSchema, secret } from './common.ts';

/**
 * Pushbullet pushes (https://docs.pushbullet.com/#create-push): `POST /v2/pushes` with an access
 * token, to all of the account's devices or to one device, email address or channel.
 */
export const schema = channelSchema('pushbullet', {
  access_token: secret.describe('Access token (Settings → Account → Create Access Token), sent as `Access-Token`.'),
  device_iden: z.string().min(1).optional().describe('Only this device (`iden` from `GET /v2/devices`); default every device of the account.'),
  email: z.email().optional().describe('Push to this email address (a Pushbullet user, or an email otherwise).'),
  channel_tag: z.string().min(1).optional().describe('Push to the subscribers of this channel (its tag).'),
  api_url: apiBase('https://api.pushbullet.com').describe('API base, overridable for a test receiver.'),
}).refine((c) => [c.device_iden, c.email, c.channel_tag].filter(Boolean).length <= 1, {
  message: 'give at most one of device_iden, email, channel_tag',
  path: ['device_iden'],
});
/**
 * Settings paths stored sealed and shown as `***` (issue 32; domain/integration-settings.ts): the access token.
 * Dotted for nested fields, `*` for every value of a record.
 */
export const secretFields = ['access_token'] as const;
/** Receives acknowledgements? No: alerts and recoveries only. */
export const lifecycle = false;
