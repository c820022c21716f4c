import type { MaintenanceSettings, MaintenanceWindow, NotificationOption } from '../domain/maintenance.ts';
import { nextOccurrences, occurrenceAt, occurrencesBetween, type Recurrence, type WindowTimes } from '../domain/maintenance-recurrence.ts';
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
  recurrence: string | null;
  timezone: string;
  cuts: string;
}

/** How many upcoming occurrences a read window carries. */
const UPCOMING = 5;

const timesOf = (r: { start_at: number; end_at: number; recurrence: string | null; timezone: string; cuts: string }): WindowTimes => ({
  startAt: r.start_at,
  endAt: r.end_at,
  recurrence: r.recurrence === null ? null : (JSON.parse(r.recurrence) as Recurrence),
  timezone: r.timezone,
  cuts: JSON.parse(r.cuts) as number[],
});

/**
 * A row → the window as read at `now`: this is where recurring windows are expanded (the occurrence
 * at `now` in `startAt`/`endAt`, the next ones in `upcoming`), so no caller computes occurrences.
 */
const toWindow = (r: Row, now: number): MaintenanceWindow => {
  const t = timesOf(r);
  const upcoming = nextOccurrences(t, now, UPCOMING);
  // The ongoing or next occurrence is the first upcoming one; only a window with none left looks back.
  const at = upcoming[0] ?? occurrenceAt(t, now);
  return {
  id: r.id,
  uuid: r.uuid,
  name: r.name,
  startAt: at?.startAt ?? r.start_at,
  endAt: at?.endAt ?? r.start_at,
  recurrence: t.recurrence,
  timezone: r.timezone,
  cuts: t.cuts as number[],
  upcoming,
  monitors: r.monitors ? r.monitors.split(',') : [],
  statuspages: JSON.parse(r.statuspages) as string[],
  title: r.title === null ? null : (JSON.parse(r.title) as MaintenanceWindow['title']),
  updates: JSON.parse(r.updates) as MaintenanceWindow['updates'],
  notificationOption: r.notification_option,
  notificationMinutes: r.notification_minutes,
  notifiedAt: r.notified_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  };
};

/** Stored windows' times per monitor → their occurrences overlapping [from, to), by monitor id. */
type TimesRow = { monitor_id: number; start_at: number; end_at: number; recurrence: string | null; timezone: string; cuts: string };

const SELECT = `SELECT w.*, (SELECT group_concat(m.uuid) FROM maintenance_monitors mm JOIN monitors m ON m.id = mm.monitor_id WHERE mm.window_id = w.id) AS monitors
  FROM maintenance_windows w`;

/** Maintenance windows and the outage reads of reports. */
export function maintenanceStore(db: Db) {
  const all = db.prepare<[], Row>(`${SELECT} ORDER BY w.start_at, w.id`);
  const byUuid = db.prepare<[string], Row>(`${SELECT} WHERE w.uuid = ?`);
  const insert = db.prepare(
    `INSERT INTO maintenance_windows(uuid, name, start_at, end_at, statuspages, title, updates, notification_option, notification_minutes, recurrence, timezone, created_at, updated_at)
     VALUES (@uuid, @name, @start_at, @end_at, @statuspages, @title, @updates, @notification_option, @notification_minutes, @recurrence, @timezone, @now, @now)`,
  );
  const update = db.prepare(
    `UPDATE maintenance_windows SET name=@name, start_at=@start_at, end_at=@end_at, statuspages=@statuspages, title=@title, updates=@updates,
       notification_option=@notification_option, notification_minutes=@notification_minutes, recurrence=@recurrence, timezone=@timezone, updated_at=@now WHERE uuid=@uuid`,
  );
  const setCuts = db.prepare('UPDATE maintenance_windows SET cuts = ?, end_at = ?, updated_at = ? WHERE uuid = ?');
  const idOf = db.prepare<[string], { id: number }>('SELECT id FROM maintenance_windows WHERE uuid = ?');
  const clearMonitors = db.prepare('DELETE FROM maintenance_monitors WHERE window_id = ?');
  const addMonitor = db.prepare('INSERT INTO maintenance_monitors(window_id, monitor_id) SELECT ?, id FROM monitors WHERE uuid = ?');
  const del = db.prepare('DELETE FROM maintenance_windows WHERE uuid = ?');
  const markNotified = db.prepare('UPDATE maintenance_windows SET notified_at = ? WHERE uuid = ? AND notified_at IS NULL');
  const activeAll = db.prepare<[number, number], TimesRow & { monitor_uuid: string }>(
    `SELECT mm.monitor_id, m.uuid AS monitor_uuid, w.start_at, w.end_at, w.recurrence, w.timezone, w.cuts FROM maintenance_windows w
     JOIN maintenance_monitors mm ON mm.window_id = w.id JOIN monitors m ON m.id = mm.monitor_id
     WHERE w.end_at > ? AND +w.start_at <= ?`,
  );
  const activeFor = db.prepare<[number, number, number], TimesRow>(
    `SELECT mm.monitor_id, w.start_at, w.end_at, w.recurrence, w.timezone, w.cuts FROM maintenance_monitors mm JOIN maintenance_windows w ON w.id = mm.window_id
     WHERE mm.monitor_id = ? AND w.start_at <= ? AND w.end_at > ?`,
  );
  // Unary `+` keeps SQLite off the start_at index: the selective bound is the end (index on end_at).
  const windowsOverlapping = db.prepare<[number, number], TimesRow>(
    `SELECT mm.monitor_id, w.start_at, w.end_at, w.recurrence, w.timezone, w.cuts FROM maintenance_windows w JOIN maintenance_monitors mm ON mm.window_id = w.id
     WHERE w.end_at > ? AND +w.start_at < ?`,
  );
  const windowsOverlappingFor = db.prepare<[number, number, number], TimesRow>(
    `SELECT mm.monitor_id, w.start_at, w.end_at, w.recurrence, w.timezone, w.cuts FROM maintenance_monitors mm JOIN maintenance_windows w ON w.id = mm.window_id
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

  /** Occurrences of each window row overlapping [from, to), by monitor (one-off rows as they are, cut by "end now"). */
  const occurrencesByMonitor = (rows: TimesRow[], from: number, to: number) => {
    // A window covering many monitors is one row per monitor: expand each window once.
    const expanded = new Map<string, Array<{ startAt: number; endAt: number }>>();
    const of = (r: TimesRow) => {
      const key = `${r.start_at}|${r.end_at}|${r.recurrence ?? ''}|${r.timezone}|${r.cuts}`;
      let list = expanded.get(key);
      if (!list) expanded.set(key, (list = occurrencesBetween(timesOf(r), from, to)));
      return list;
    };
    return byMonitor(rows.flatMap((r) => of(r).map((o) => ({ monitor_id: r.monitor_id, start_at: o.startAt, end_at: o.endAt }))));
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
    recurrence: s.recurrence === null ? null : JSON.stringify(s.recurrence),
    timezone: s.timezone,
    now,
  });
  const setMonitors = (uuid: string, monitors: readonly string[]) => {
    const id = idOf.get(uuid)!.id;
    clearMonitors.run(id);
    for (const m of monitors) addMonitor.run(id, m);
  };

  return {
    /** Every window as read at `now` (epoch ms; recurring ones at their occurrence then, see `MaintenanceWindow`). */
    list: (now: number): MaintenanceWindow[] => all.all().map((r) => toWindow(r, now)),
    /** The window as read at `now` (epoch ms), or undefined. */
    get(uuid: string, now: number): MaintenanceWindow | undefined {
      const r = byUuid.get(uuid);
      return r && toWindow(r, now);
    },
    /** Inserts a window with its monitors. Call inside a transaction. */
    insert(uuid: string, s: MaintenanceSettings, now: number): MaintenanceWindow {
      insert.run(params(uuid, s, now));
      setMonitors(uuid, s.monitors);
      return toWindow(byUuid.get(uuid)!, now);
    },
    /** Replaces a window's settings and monitors ("end now" cuts are kept). Call inside a transaction. */
    update(uuid: string, s: MaintenanceSettings, now: number): MaintenanceWindow {
      update.run(params(uuid, s, now));
      setMonitors(uuid, s.monitors);
      return toWindow(byUuid.get(uuid)!, now);
    },
    /**
     * "End now" at `now` (epoch ms): the occurrence running then ends at `now` (a cut; the 50 newest
     * are kept); a one-off window's end becomes `now`. Call inside a transaction.
     */
    cutAt(uuid: string, now: number): MaintenanceWindow {
      const r = byUuid.get(uuid)!;
      const cuts = [...(JSON.parse(r.cuts) as number[]), now].slice(-50);
      setCuts.run(JSON.stringify(cuts), r.recurrence === null ? Math.max(r.start_at + 1, Math.min(r.end_at, now)) : r.end_at, now, uuid);
      return toWindow(byUuid.get(uuid)!, now);
    },
    delete: (uuid: string): boolean => del.run(uuid).changes === 1,
    /** Records that subscribers were told about the window. @returns false when they already were */
    markNotified: (uuid: string, at: number): boolean => markNotified.run(at, uuid).changes === 1,
    /** True when an occurrence of a window covering the monitor is ongoing at `at` (an index seek per call, then the candidates' occurrences). */
    activeForMonitor: (monitorId: number, at: number): boolean => occurrencesByMonitor(activeFor.all(monitorId, at, at), at, at + 1).size > 0,
    /**
     * Uuids of the monitors an occurrence covers at `at` (epoch ms): the windows whose bounds hold `at`
     * (an index range read), each expanded once around `at` (the console's "in maintenance").
     */
    monitorUuidsActiveAt(at: number): string[] {
      const rows = activeAll.all(at, at);
      const held = occurrencesByMonitor(rows, at, at + 1);
      return [...new Set(rows.filter((r) => held.has(r.monitor_id)).map((r) => r.monitor_uuid))];
    },
    /** Maintenance occurrences overlapping [from, to), by monitor id (only `monitorId`'s when given); recurring windows expanded. */
    windowsBetween(from: number, to: number, monitorId?: number): Map<number, Interval[]> {
      return occurrencesByMonitor(monitorId === undefined ? windowsOverlapping.all(from, to) : windowsOverlappingFor.all(monitorId, from, to), from, to);
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
