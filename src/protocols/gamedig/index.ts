import { z } from 'zod';
import { invalid } from '../../lib/errors.ts';
import { hostTarget } from '../target.ts';
import type { ProtocolDefinition } from '../types.ts';

const fields = {
  gamedig_game: z.string({ error: 'must be a gamedig game id such as minecraft or counterstrike2' }).max(64, 'must be at most 64 characters').regex(/^$|^[a-z0-9][a-z0-9_-]*$/, 'must be a gamedig game id such as minecraft or counterstrike2 (lower case)'),
  gamedig_given_port_only: z.boolean({ error: 'must be true or false' }),
};

/**
 * gamedig: queries the game server at `url` (a host) with the `gamedig` package's protocol for
 * `gamedig_game` (its game id: `minecraft`, `counterstrike2`, `valheim`, …, or `protocol-<name>` for a
 * protocol itself, e.g. `protocol-minecraftvanilla`); `port` null = the game's usual query port. Up
 * when the server answers the query. With `gamedig_given_port_only` (true, as Uptime Kuma's default)
 * only `port` is asked, not the game's other usual ports. Borrowed from Uptime Kuma's GameDig monitor.
 */
export const gamedig = {
  fields,
  defaults: { gamedig_game: '', gamedig_given_port_only: true },
  urlMeaning: 'the game server: a host name or IP (host:port or a URL also work); `port` defaults to the game\'s query port',
  label: 'Game server',
  target: (url, port) => hostTarget(url, port, null),
  validate(settings) {
    if (!settings.gamedig_game) throw invalid('gamedig_game', 'is required for protocol "gamedig" (a gamedig game id such as minecraft or counterstrike2)');
  },
  loadProbe: async () => (await import('./probe.ts')).gamedigProbe,
} satisfies ProtocolDefinition<typeof fields>;
