import type { HttpMethod, Monitor, MonitorSettings, MonitorStatus, Protocol } from '../domain/monitor.ts';
import type { Region } from '../domain/regions.ts';
import type { Db } from './db.ts';

interface MonitorRow {
  id: number;
  uuid: string;
  name: string;
  url: string;
  protocol: string;
  http_method: string;
  check_frequency_s: number;
  regions: string;
  status: string;
  paused: number;
  expected_status_code: string;
  required_keyword: string | null;
  follow_redirects: number;
  port: number | null;
  ssl_expiration_days: number | null;
  alerts_wait_min: number;
  escalation_policy_uuid: string | null;
  request_body: string | null;
  request_headers: string;
  timeout_s: number;
  created_at: number;
  updated_at: number;
}

const toMonitor = (r: MonitorRow): Monitor => ({
  id: r.id,
  uuid: r.uuid,
  name: r.name,
  url: r.url,
  protocol: r.protocol as Protocol,
  httpMethod: r.http_method as HttpMethod,
  checkFrequencySeconds: r.check_frequency_s,
  regions: JSON.parse(r.regions) as Region[],
  status: r.status as MonitorStatus,
  paused: r.paused === 1,
  expectedStatusCode: r.expected_status_code,
  requiredKeyword: r.required_keyword,
  followRedirects: r.follow_redirects === 1,
  port: r.port,
  sslExpirationDays: r.ssl_expiration_days,
  alertsWaitMinutes: r.alerts_wait_min,
  escalationPolicyUuid: r.escalation_policy_uuid,
  requestBody: r.request_body,
  requestHeaders: JSON.parse(r.request_headers) as Monitor['requestHeaders'],
  timeoutSeconds: r.timeout_s,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const settingsParams = (s: MonitorSettings) => ({
  name: s.name,
  url: s.url,
  protocol: s.protocol,
  http_method: s.httpMethod,
  check_frequency_s: s.checkFrequencySeconds,
  regions: JSON.stringify(s.regions),
  paused: s.paused ? 1 : 0,
  expected_status_code: s.expectedStatusCode,
  required_keyword: s.requiredKeyword,
  follow_redirects: s.followRedirects ? 1 : 0,
  port: s.port,
  alerts_wait_min: s.alertsWaitMinutes,
  escalation_policy_uuid: s.escalationPolicyUuid,
  request_body: s.requestBody,
  request_headers: JSON.stringify(s.requestHeaders),
  timeout_s: s.timeoutSeconds,
});

/** Monitor rows. All reads return domain {@link Monitor}s. */
export function monitorsStore(db: Db) {
  const all = db.prepare<[], MonitorRow>('SELECT * FROM monitors ORDER BY id');
  const byUuid = db.prepare<[string], MonitorRow>('SELECT * FROM monitors WHERE uuid = ?');
  const byId = db.prepare<[number], MonitorRow>('SELECT * FROM monitors WHERE id = ?');
  const insert = db.prepare(
    `INSERT INTO monitors(uuid, name, url, protocol, http_method, check_frequency_s, regions, status, paused,
       expected_status_code, required_keyword, follow_redirects, port, ssl_expiration_days, alerts_wait_min,
       escalation_policy_uuid, request_body, request_headers, timeout_s, created_at, updated_at)
     VALUES (@uuid, @name, @url, @protocol, @http_method, @check_frequency_s, @regions, 'up', @paused,
       @expected_status_code, @required_keyword, @follow_redirects, @port, NULL, @alerts_wait_min,
       @escalation_policy_uuid, @request_body, @request_headers, @timeout_s, @now, @now)`,
  );
  const update = db.prepare(
    `UPDATE monitors SET name=@name, url=@url, protocol=@protocol, http_method=@http_method,
       check_frequency_s=@check_frequency_s, regions=@regions, paused=@paused,
       expected_status_code=@expected_status_code, required_keyword=@required_keyword,
       follow_redirects=@follow_redirects, port=@port, alerts_wait_min=@alerts_wait_min,
       escalation_policy_uuid=@escalation_policy_uuid, request_body=@request_body,
       request_headers=@request_headers, timeout_s=@timeout_s, updated_at=@now
     WHERE uuid=@uuid`,
  );
  const del = db.prepare('DELETE FROM monitors WHERE uuid = ?');
  const setStatus = db.prepare('UPDATE monitors SET status = ? WHERE id = ?');
  const setSsl = db.prepare('UPDATE monitors SET ssl_expiration_days = ? WHERE id = ? AND ssl_expiration_days IS NOT ?');

  return {
    list: (): Monitor[] => all.all().map(toMonitor),
    get(uuid: string): Monitor | undefined {
      const r = byUuid.get(uuid);
      return r && toMonitor(r);
    },
    getById(id: number): Monitor | undefined {
      const r = byId.get(id);
      return r && toMonitor(r);
    },
    /** Inserts a new monitor with status `up` (API.md §2.2); returns it as stored. */
    insert(uuid: string, s: MonitorSettings, now: number): Monitor {
      insert.run({ ...settingsParams(s), uuid, now });
      return toMonitor(byUuid.get(uuid)!);
    },
    /** Replaces the settings of a monitor; returns it as stored, or undefined when unknown. */
    update(uuid: string, s: MonitorSettings, now: number): Monitor | undefined {
      if (update.run({ ...settingsParams(s), uuid, now }).changes === 0) return undefined;
      return toMonitor(byUuid.get(uuid)!);
    },
    /** Deletes a monitor; its results, rollups, flips and outages go with it (ON DELETE CASCADE). */
    delete: (uuid: string): boolean => del.run(uuid).changes === 1,
    setStatus(id: number, status: MonitorStatus): void {
      setStatus.run(status, id);
    },
    /** Stores the latest days-to-expiry of the served certificate (no write when unchanged). */
    setSslExpiration(id: number, days: number | null): void {
      setSsl.run(days, id, days);
    },
  };
}

/** The monitors store's interface. */
export type MonitorsStore = ReturnType<typeof monitorsStore>;
