import type { MaintenanceSettings, MaintenanceWindow, NotificationOption } from '../domain/maintenance.ts';
import type { Interval } from '../domain/report.ts';
import type { Db } from './db.ts';

interface Row {
  id: number;
  uuid: string;
  name: string;
  start_at: number;
  end_at: number;
  statuspages: string;
  title: string | null;
  updates: string;
  notification_option: NotificationOption;
  notification_minutes: number;
  notified_at: number | null;
  created_at: number;
  updated_at: number;
  monitors: string | null;
}

const toWindow = (r: Row): MaintenanceWindow => ({
  id: r.id,
  uuid: r.uuid,
  name: r.name,
  startAt: r.start_at,
  endAt: r.end_at,
  monitors: r.monitors ? r.monitors.split(',') : [],
  statuspages: JSON.parse(r.statuspages) as string[],
  title: r.title === null ? null : (JSON.parse(r.title) as MaintenanceWindow['title']),
  updates: JSON.parse(r.updates) as MaintenanceWindow['updates'],
  notificationOption: r.notification_option,
  notificationMinutes: r.notification_minutes,
  notifiedAt: r.notified_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const SELECT = `SELECT w.*, (SELECT group_concat(m.uuid) FROM maintenance_monitors mm JOIN monitors m ON m.id = mm.monitor_id WHERE mm.window_id = w.id) AS monitors
  FROM maintenance_windows w`;

/** Maintenance windows and the outage reads of reports. */
export function maintenanceStore(db: Db) {
  const all = db.prepare<[], Row>(`${SELECT} ORDER BY w.start_at, w.id`);
  const byUuid = db.prepare<[string], Row>(`${SELECT} WHERE w.uuid = ?`);
  const insert = db.prepare(
    `INSERT INTO maintenance_windows(uuid, name, start_at, end_at, statuspages, title, updates, notification_option, notification_minutes, created_at, updated_at)
     VALUES (@uuid, @name, @start_at, @end_at, @statuspages, @title, @updates, @notification_option, @notification_minutes, @now, @now)`,
  );
  const update = db.prepare(
    `UPDATE maintenance_windows SET name=@name, start_at=@start_at, end_at=@end_at, statuspages=@statuspages, title=@title, updates=@updates,
       notification_option=@notification_option, notification_minutes=@notification_minutes, updated_at=@now WHERE uuid=@uuid`,
  );
  const idOf = db.prepare<[string], { id: number }>('SELECT id FROM maintenance_windows WHERE uuid = ?');
  const clearMonitors = db.prepare('DELETE FROM maintenance_monitors WHERE window_id = ?');
  const addMonitor = db.prepare('INSERT INTO maintenance_monitors(window_id, monitor_id) SELECT ?, id FROM monitors WHERE uuid = ?');
  const del = db.prepare('DELETE FROM maintenance_windows WHERE uuid = ?');
  const markNotified = db.prepare('UPDATE maintenance_windows SET notified_at = ? WHERE uuid = ? AND notified_at IS NULL');
  const activeFor = db.prepare<[number, number, number], { n: number }>(
    `SELECT count(*) AS n FROM maintenance_monitors mm JOIN maintenance_windows w ON w.id = mm.window_id
     WHERE mm.monitor_id = ? AND w.start_at <= ? AND w.end_at > ?`,
  );
  // Unary `+` keeps SQLite off the start_at index: the selective bound is the end (index on end_at).
  const windowsOverlapping = db.prepare<[number, number], { monitor_id: number; start_at: number; end_at: number }>(
    `SELECT mm.monitor_id, w.start_at, w.end_at FROM maintenance_windows w JOIN maintenance_monitors mm ON mm.window_id = w.id
     WHERE w.end_at > ? AND +w.start_at < ?`,
  );
  const windowsOverlappingFor = db.prepare<[number, number, number], { monitor_id: number; start_at: number; end_at: number }>(
    `SELECT mm.monitor_id, w.start_at, w.end_at FROM maintenance_monitors mm JOIN maintenance_windows w ON w.id = mm.window_id
     WHERE mm.monitor_id = ? AND w.end_at > ? AND +w.start_at < ?`,
  );
  const outagesEnded = db.prepare<[number, number], { monitor_id: number; start_at: number; end_at: number | null }>(
    'SELECT monitor_id, start_at, end_at FROM outages INDEXED BY outages_end WHERE end_at > ? AND +start_at < ? AND monitor_id IS NOT NULL',
  );
  const outagesOngoing = db.prepare<[number], { monitor_id: number; start_at: number; end_at: number | null }>(
    'SELECT monitor_id, start_at, end_at FROM outages INDEXED BY outages_end WHERE end_at IS NULL AND +start_at < ? AND monitor_id IS NOT NULL',
  );
  const outagesFor = db.prepare<[number, number, number, number], { monitor_id: number; start_at: number; end_at: number | null }>(
    `SELECT monitor_id, start_at, end_at FROM outages INDEXED BY outages_monitor WHERE monitor_id = ? AND end_at > ? AND +start_at < ?
     UNION ALL
     SELECT monitor_id, start_at, end_at FROM outages INDEXED BY outages_monitor WHERE monitor_id = ? AND end_at IS NULL`,
  );
  const byMonitor = (rows: Array<{ monitor_id: number; start_at: number; end_at: number | null }>) => {
    const m = new Map<number, Interval[]>();
    for (const r of rows) {
      let list = m.get(r.monitor_id);
      if (!list) m.set(r.monitor_id, (list = []));
      list.push({ startAt: r.start_at, endAt: r.end_at });
    }
    return m;
  };

  const params = (uuid: string, s: MaintenanceSettings, now: number) => ({
    uuid,
    name: s.name,
    start_at: s.startAt,
    end_at: s.endAt,
    statuspages: JSON.stringify(s.statuspages),
    title: s.title === null ? null : JSON.stringify(s.title),
    updates: JSON.stringify(s.updates),
    notification_option: s.notificationOption,
    notification_minutes: s.notificationMinutes,
    now,
  });
  const setMonitors = (uuid: string, monitors: readonly string[]) => {
    const id = idOf.get(uuid)!.id;
    clearMonitors.run(id);
    for (const m of monitors) addMonitor.run(id, m);
  };

  return {
    list: (): MaintenanceWindow[] => all.all().map(toWindow),
    get(uuid: string): MaintenanceWindow | undefined {
      const r = byUuid.get(uuid);
      return r && toWindow(r);
    },
    /** Inserts a window with its monitors. Call inside a transaction. */
    insert(uuid: string, s: MaintenanceSettings, now: number): MaintenanceWindow {
      insert.run(params(uuid, s, now));
      setMonitors(uuid, s.monitors);
      return toWindow(byUuid.get(uuid)!);
    },
    /** Replaces a window's settings and monitors. Call inside a transaction. */
    update(uuid: string, s: MaintenanceSettings, now: number): MaintenanceWindow {
      update.run(params(uuid, s, now));
      setMonitors(uuid, s.monitors);
      return toWindow(byUuid.get(uuid)!);
    },
    delete: (uuid: string): boolean => del.run(uuid).changes === 1,
    /** Records that subscribers were told about the window. @returns false when they already were */
    markNotified: (uuid: string, at: number): boolean => markNotified.run(at, uuid).changes === 1,
    /** True when a window covering the monitor is ongoing at `at` (an index seek per call). */
    activeForMonitor: (monitorId: number, at: number): boolean => activeFor.get(monitorId, at, at)!.n > 0,
    /** Maintenance intervals overlapping [from, to), by monitor id (only `monitorId`'s when given). */
    windowsBetween(from: number, to: number, monitorId?: number): Map<number, Interval[]> {
      return byMonitor(monitorId === undefined ? windowsOverlapping.all(from, to) : windowsOverlappingFor.all(monitorId, from, to));
    },
    /**
     * Monitor outages overlapping [from, to) — ended after `from`, or ongoing — by monitor id (only
     * `monitorId`'s when given). Index range reads: the cost follows the outages in the range, not
     * the history.
     */
    outagesBetween(from: number, to: number, monitorId?: number): Map<number, Interval[]> {
      if (monitorId !== undefined) return byMonitor(outagesFor.all(monitorId, from, to, monitorId).filter((r) => r.start_at < to));
      return byMonitor([...outagesEnded.all(from, to), ...outagesOngoing.all(to)]);
    },
  };
}

/** The maintenance store's interface. */
export type MaintenanceStore = ReturnType<typeof maintenanceStore>;
