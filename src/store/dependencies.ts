import type { Db } from './db.ts';

/** A monitor another one depends on, as the dependency rule reads it. */
export interface DependencyParent {
  id: number;
  uuid: string;
  name: string;
  checkFrequencySeconds: number;
  paused: boolean;
  /** When its latest outage ended (epoch ms), or null (none, or still open). */
  recoveredAt: number | null;
}

/**
 * Monitor dependencies (issue 36, table `monitor_dependencies`): which monitors a monitor depends on,
 * for the monitors store (store/monitors.ts reads and writes them with the monitor's row, in the
 * caller's transaction, like its tags). Uuids in the order given.
 */
export function dependencyLinks(db: Db) {
  const all = db.prepare<[], { monitor_id: number; uuid: string }>(
    'SELECT d.monitor_id, m.uuid FROM monitor_dependencies d JOIN monitors m ON m.id = d.depends_on_id ORDER BY d.monitor_id, d.position',
  );
  const parents = db.prepare<[number], { id: number; uuid: string; name: string; check_frequency_s: number; paused: number; recovered_at: number | null }>(
    `SELECT m.id, m.uuid, m.name, m.check_frequency_s, m.paused, (SELECT MAX(o.end_at) FROM outages o WHERE o.monitor_id = m.id) AS recovered_at
     FROM monitor_dependencies d JOIN monitors m ON m.id = d.depends_on_id WHERE d.monitor_id = ? ORDER BY d.position`,
  );
  const edges = db.prepare<[], { monitor_id: number; depends_on_id: number }>('SELECT monitor_id, depends_on_id FROM monitor_dependencies');
  const clear = db.prepare('DELETE FROM monitor_dependencies WHERE monitor_id = ?');
  const link = db.prepare('INSERT INTO monitor_dependencies(monitor_id, depends_on_id, position) VALUES (?, ?, ?) ON CONFLICT DO NOTHING');
  return {
    /** Every monitor's dependencies (uuids), by monitor id (monitors without are absent). */
    all(): Map<number, string[]> {
      const out = new Map<number, string[]>();
      for (const r of all.all()) out.set(r.monitor_id, [...(out.get(r.monitor_id) ?? []), r.uuid]);
      return out;
    },
    /** The monitors `monitorId` depends on, in the order given. */
    parents: (monitorId: number): DependencyParent[] =>
      parents.all(monitorId).map((r) => ({ id: r.id, uuid: r.uuid, name: r.name, checkFrequencySeconds: r.check_frequency_s, paused: r.paused === 1, recoveredAt: r.recovered_at === null ? null : Number(r.recovered_at) })),
    /** Every edge [dependent id, parent id] (cycle checks). */
    edges: (): Array<[number, number]> => edges.all().map((r) => [r.monitor_id, r.depends_on_id]),
    /** Replaces a monitor's dependencies by `parentIds` (in this order). */
    set(monitorId: number, parentIds: readonly number[]): void {
      clear.run(monitorId);
      parentIds.forEach((p, i) => link.run(monitorId, p, i));
    },
  };
}
