/**
 * Synthetic history for benches, written straight into a stopped Pharos's SQLite file (the API has
 * no way to backdate outages or rollups).
 */
import type Database from 'better-sqlite3';
import { median, quantile } from './proc.ts';

const DAY = 86_400_000;
const HOUR = 3_600_000;

/**
 * One outage a day per monitor for `days` days before `now` (start spread over the first 20 h of
 * the day, 5–65 min long), numbered on from the incident counter, which is moved past them.
 * `onDay(id, day, start)` is called for each, e.g. to add maintenance windows.
 * @returns outages written. Call inside a transaction.
 */
export function seedDailyOutages(db: Database.Database, ids: readonly number[], days: number, now: number, onDay?: (id: number, day: number, start: number) => void): number {
  const insert = db.prepare(
    `INSERT INTO outages(uuid, incident_number, kind, monitor_id, start_at, end_at, status_code, description, detected_location, confirmed_locations, protocol, severity, created_at)
     VALUES (?, ?, 'monitor', ?, ?, ?, 503, 'Expected 2xx, got 503', 'london', 'london', 'http', 'minor', ?)`,
  );
  let n = 0;
  for (const id of ids) {
    for (let d = days; d >= 1; d--) {
      const start = now - d * DAY + ((id * 7919 + d * 104_729) % (20 * HOUR));
      insert.run(`outage_b${id}_${d}`, ++n, id, start, start + (5 + ((id + d) % 61)) * 60_000, start);
      onDay?.(id, d, start);
    }
  }
  db.prepare("UPDATE counters SET value = ? WHERE name = 'incident_number'").run(n);
  return n;
}

/**
 * Times `requests` sequential calls of `send` (after `warmup` untimed ones); each must resolve to an
 * ok Response, whose body is read in full.
 * @returns p50/p99 in ms and the size of the last body in bytes
 */
export async function timeRequests(send: () => Promise<Response>, requests: number, warmup = 0): Promise<{ p50: number; p99: number; bytes: number }> {
  const ms: number[] = [];
  let bytes = 0;
  for (let i = 0; i < warmup + requests; i++) {
    const t = performance.now();
    const res = await send();
    bytes = (await res.arrayBuffer()).byteLength;
    if (!res.ok) throw new Error(`${res.url}: ${res.status}`);
    if (i >= warmup) ms.push(performance.now() - t);
  }
  return { p50: median(ms), p99: quantile(ms, 0.99), bytes };
}
