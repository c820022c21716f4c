import { z } from 'zod';
import { apiBase, channelSchema, secret } from './common.ts';

const E164 = z.string().regex(/^\+[1-9]\d{6,14}$/, 'must be a phone number in E.164 form, e.g. +15551234567');

/** SMS through Twilio's Messages API, one message per recipient. */
export const schema = channelSchema('twilio', {
  account_sid: z.string().regex(/^AC[0-9a-fA-F]{32}$/, 'must be an account SID (AC + 32 hex digits)'),
  auth_token: secret,
  from: z.union([E164, z.string().regex(/^MG[0-9a-fA-F]{32}$/)]).describe('Sender number (E.164) or a Messaging Service SID (`MG…`).'),
  to: z.array(E164).min(1),
  api_url: apiBase('https://api.twilio.com'),
});
/**
 * Settings paths stored sealed and shown as `***` (issue 32; domain/integration-settings.ts): the auth token.
 * Dotted for nested fields, `*` for every value of a record.
 */
export const secretFields = ['auth_token'] as const;
export const lifecycle = false;
