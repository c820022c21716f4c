import { z } from 'zod';
import { channelSchema, httpUrl, secret } from './common.ts';

/**
 * Signal messages through a signal-cli REST API (https://github.com/bbernhard/signal-cli-rest-api,
 * `POST /v2/send` in its Swagger doc https://bbernhard.github.io/signal-cli-rest-api/), which holds
 * the registered (or linked) number.
 */
export const schema = channelSchema('signal', {
  base_url: httpUrl.describe('The API\'s address, e.g. `http://signal-api.lan:8080`.'),
  number: z.string().regex(/^\+[1-9]\d{6,14}$/, 'must be a phone number in E.164 form, e.g. +15551234567').describe('The number registered or linked in signal-cli, the sender (E.164).'),
  recipients: z.array(z.string().min(1)).min(1).describe('Phone numbers (E.164), group ids (`group.…`, from `GET /v1/groups/<number>`) or usernames.'),
  basic_auth: z.strictObject({ user: z.string().min(1), password: secret }).optional().describe('Basic auth of a reverse proxy in front of the API (signal-cli-rest-api has no login of its own).'),
});
/**
 * Settings paths stored sealed and shown as `***` (issue 32; domain/integration-settings.ts): the proxy's password.
 * Dotted for nested fields, `*` for every value of a record.
 */
export const secretFields = ['basic_auth.password'] as const;
/** Receives acknowledgements? No: alerts and recoveries only. */
export const lifecycle = false;
