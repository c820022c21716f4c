import type { CheckOutcome } from '../../domain/check.ts';
import type { CheckSpec, Probe, ProbeOptions } from '../types.ts';

/**
 * The group check (index.ts): reads its members' states through `options.monitorStates` (the server's
 * store) and sums them up: every member up → up; some down → up and degraded, naming them; all down
 * (or none found) → down, naming them. Without `monitorStates` (a `pharos agent`) it answers down:
 * groups are checked by the server only. Never throws.
 */
export function groupProbe(options: ProbeOptions): Probe {
  return {
    async check(spec: CheckSpec): Promise<CheckOutcome> {
      const started = performance.now();
      const done = (ok: boolean, reason: string | null, degraded = false): CheckOutcome => ({ ok, latencyMs: Math.max(0, Math.round(performance.now() - started)), statusCode: 0, reason, degraded });
      if (!options.monitorStates) return done(false, 'Group monitors are checked by the server, not by an agent');
      const uuids = (spec.settings.group_members as string[] | undefined) ?? [];
      let states;
      try {
        states = await options.monitorStates(uuids);
      } catch (e) {
        return done(false, `Reading the members failed: ${(e as Error).message}`);
      }
      const found = states.filter((s) => s !== undefined && !s.paused);
      const down = found.filter((s) => s!.status === 'down').map((s) => s!.name);
      const missing = uuids.length - states.filter((s) => s !== undefined).length;
      const gone = missing > 0 ? ` (${missing} member${missing === 1 ? '' : 's'} not found)` : '';
      if (found.length === 0) return done(false, `No member to sum up${gone}`);
      if (down.length === found.length) return done(false, `All ${found.length} members down: ${down.join(', ')}${gone}`);
      return done(true, null, down.length > 0);
    },
    async close() {},
  };
}
