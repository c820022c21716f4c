import { z } from 'zod';
import { channelName, timeoutSeconds } from './common.ts';

/** Mail through an SMTP server (nodemailer). */
export const schema = z.strictObject({
  name: channelName,
  type: z.literal('email'),
  from: z.string().min(3),
  to: z.array(z.string().min(3)).min(1),
  smtp: z.strictObject({
    host: z.string().min(1),
    port: z.number().int().min(1).max(65535).default(587),
    secure: z.boolean().default(false).describe('true: TLS from the first byte (port 465); false: plain, upgraded by STARTTLS when offered.'),
    require_tls: z.boolean().default(false).describe('Refuse to send unless the server offers STARTTLS.'),
    allow_plaintext_auth: z.boolean().default(false).describe('Allow `user`/`password` to be sent over a connection without TLS (a server that offers no STARTTLS, with `secure: false`). Off by default: with a `user`, Pharos then refuses to send rather than log in in cleartext (issue #30). Only for a relay on a trusted network.'),
    tls_reject_unauthorized: z.boolean().default(true).describe('false accepts self-signed server certificates (lab setups only).'),
    user: z.string().optional(),
    password: z.string().optional(),
    timeout_seconds: timeoutSeconds,
  }),
});
/**
 * Settings paths stored sealed and shown as `***` (issue 32; domain/integration-settings.ts): the SMTP password.
 * Dotted for nested fields, `*` for every value of a record.
 */
export const secretFields = ['smtp.password'] as const;
export const lifecycle = false;
