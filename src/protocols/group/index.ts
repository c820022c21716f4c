import { z } from 'zod';
import { invalid } from '../../lib/errors.ts';
import type { ProtocolDefinition } from '../types.ts';

const fields = {
  group_members: z
    .array(z.string({ error: 'must be an array of monitor uuids' }), { error: 'must be an array of monitor uuids' })
    .max(200, 'must name at most 200 monitors')
    .meta({ description: 'uuids of the monitors this group sums up' }),
};

/**
 * group (issue 36; Uptime Kuma's group monitor): sums up other monitors, no network check of its own.
 * Up when every member is up, degraded (up, "Degraded performance") when some are down, down when
 * all are down; paused members are left out. The members' states are read by the server's own probe
 * (`ProbeOptions.monitorStates`), so a group is checked only in the server's region, never by an agent.
 * `url` is only a label (e.g. `group:core-network`).
 */
export const group = {
  fields,
  defaults: { group_members: [] as string[] },
  urlMeaning: 'a label for the group (not checked), e.g. group:core-network',
  label: 'Group of monitors',
  target: (url) => ({ url, host: '', port: null }),
  validate(s) {
    if (s.group_members.length === 0) throw invalid('group_members', 'must name at least one monitor');
  },
  loadProbe: async () => (await import('./probe.ts')).groupProbe,
} satisfies ProtocolDefinition<typeof fields>;
