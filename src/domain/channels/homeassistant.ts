import { z } from 'zod';
import { channelSchema, httpUrl, secret } from './common.ts';

/**
 * A Home Assistant notify service, through Home Assistant's REST API
 * (https://developers.home-assistant.io/docs/api/rest/, `POST /api/services/<domain>/<service>`):
 * `POST <base_url>/api/services/notify/<service>` with a long-lived access token.
 */
export const schema = channelSchema('homeassistant', {
  base_url: httpUrl.describe('Home Assistant\'s address, e.g. `http://homeassistant.local:8123`.'),
  token: secret.describe('Long-lived access token (your profile → Security → Long-lived access tokens), sent as `Authorization: Bearer`.'),
  service: z.string().regex(/^[a-z0-9_]{1,100}$/, 'must be the service name after notify., e.g. mobile_app_pixel_7').describe('The notify service without `notify.`: `mobile_app_<device>` (the companion app), a notify group, or `persistent_notification` (shown in Home Assistant\'s own UI).'),
  target: z.array(z.string().min(1)).optional().describe('Optional `target` of the service call (platforms that address recipients by name).'),
});
/**
 * Settings paths stored sealed and shown as `***` (issue 32; domain/integration-settings.ts): the access token.
 * Dotted for nested fields, `*` for every value of a record.
 */
export const secretFields = ['token'] as const;
/** Receives acknowledgements? No: alerts and recoveries only. */
export const lifecycle = false;
