import { z } from 'zod';
import { channelSchema } from './common.ts';

/**
 * The `apprise` kind: runs the Apprise command line tool (https://github.com/caronc/apprise, its
 * CLI usage https://github.com/caronc/apprise/wiki/CLI_Usage; Debian's package `apprise`) with the
 * configured URLs, so the ~100 services Apprise knows are reachable. Not to be confused with the
 * short form `{name, apprise: "<url>"}` (domain/channels/apprise.ts), which Pharos expands itself
 * into one of its own kinds without running anything.
 */
export const schema = channelSchema('apprise', {
  urls: z.array(z.string().regex(/^[a-z][a-z0-9+.-]*:\/\/\S+$/i, 'must be an Apprise URL such as tgram://bot_token/chat_id')).min(1).max(50).describe('Apprise URLs (https://github.com/caronc/apprise/wiki), e.g. `tgram://<bot_token>/<chat_id>`; each notified by one run. They carry tokens and passwords: the whole list is a secret.'),
});
/**
 * Settings paths stored sealed and shown as `***` (issue 32; domain/integration-settings.ts): the URL list.
 * Dotted for nested fields, `*` for every value of a record.
 */
export const secretFields = ['urls'] as const;
/** Receives acknowledgements? No: alerts and recoveries only. */
export const lifecycle = false;
