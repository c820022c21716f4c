/**
 * Uptime Kuma's data, normalized (issue 18 "Import from Uptime Kuma"): what the kuma.db reader
 * (`store/kuma-reader.ts`, schema 1.23 and 2.x) and the JSON backup parser ({@link parseKumaBackup})
 * both produce, so the mapping to Pharos is written once. Field meanings follow Kuma's `monitor`,
 * `notification`, `status_page`, `group`, `monitor_group` and `maintenance` tables; times in
 * seconds as Kuma keeps them.
 */

/** One Kuma monitor. */
export interface KumaMonitor {
  id: number;
  name: string;
  /** `http`, `keyword`, `json-query`, `port`, `ping`, `dns`, `push`, `group`, `docker`, … */
  type: string;
  active: boolean;
  url: string | null;
  hostname: string | null;
  port: number | null;
  method: string | null;
  body: string | null;
  /** JSON text of an object `{name: value}`, as Kuma stores it. */
  headers: string | null;
  basicAuthUser: string | null;
  basicAuthPass: string | null;
  /** Seconds between checks. */
  intervalSeconds: number;
  /** Seconds between retries while failing. */
  retryIntervalSeconds: number;
  /** Failures retried before the monitor is down. */
  maxRetries: number;
  /** Request timeout, seconds (null: Kuma's default, 80 % of the interval). */
  timeoutSeconds: number | null;
  keyword: string | null;
  invertKeyword: boolean;
  ignoreTls: boolean;
  upsideDown: boolean;
  maxRedirects: number;
  /** e.g. `["200-299"]`. */
  acceptedStatusCodes: string[];
  dnsResolveType: string | null;
  dnsResolveServer: string | null;
  jsonPath: string | null;
  expectedValue: string | null;
  /** 2.x only (`==` for 1.23 json-query monitors). */
  jsonPathOperator: string | null;
  databaseConnectionString: string | null;
  /** Notifications (ids) this monitor sends to. */
  notificationIds: number[];
  /** Its tags (Kuma's `tag` and `monitor_tag`, or a backup's `tags`): name, colour as Kuma keeps it, value (`''`: none). */
  tags: KumaTag[];
  /** The group monitor (`type` `group`) it is in, or null (Kuma's `parent`). */
  parentId: number | null;
  /** docker: the container (name or id) and its host's daemon (`docker_host` table: a socket path or a URL) and type (`socket`, `tcp`); the reader joins the host, a backup has none. */
  dockerContainer?: string | null;
  dockerDaemon?: string | null;
  dockerType?: string | null;
  /** mqtt: topic, the expected message (keyword), credentials, and 2.x's check type (`keyword`, `json-query`). */
  mqttTopic?: string | null;
  mqttSuccessMessage?: string | null;
  mqttUsername?: string | null;
  mqttPassword?: string | null;
  mqttCheckType?: string | null;
  /** smtp (2.x): `secure` (TLS at once), `starttls`, `nostarttls`. */
  smtpSecurity?: string | null;
  /** websocket-upgrade (2.x): "ignore Sec-WebSocket-Accept". */
  wsIgnoreAcceptHeader?: boolean;
  /** http: Kuma's `auth_method` (`basic`, `ntlm`, `mtls`, `oauth2-cc`, or null: basic when a user is set). */
  authMethod?: string | null;
  /** http `mtls`: PEM client certificate, key and CA. */
  tlsCert?: string | null;
  tlsKey?: string | null;
  tlsCa?: string | null;
  /** http `oauth2-cc`: the client-credentials grant. */
  oauthTokenUrl?: string | null;
  oauthClientId?: string | null;
  oauthClientSecret?: string | null;
  oauthScopes?: string | null;
  /** snmp (2.x): the OID, the version (`1`, `2c`), and the community, which Kuma keeps in `radius_password` (server/monitor-types/snmp.js). */
  snmpOid?: string | null;
  snmpVersion?: string | null;
  radiusPassword?: string | null;
  /** gamedig: the game id and "use the given port only". */
  game?: string | null;
  gamedigGivenPortOnly?: boolean;
  /** mongodb (and other database types): the command, JSON text. */
  databaseQuery?: string | null;
  /** The monitor's description (Kuma's `description`). */
  description?: string | null;
  /** "Certificate expiry notification" (Kuma's `expiry_notification`). */
  expiryNotification?: boolean;
  /** push: the token of its push URL `/api/push/<token>` (Kuma's `push_token`). */
  pushToken?: string | null;
}

/** A tag on a Kuma monitor. */
export interface KumaTag {
  name: string;
  color: string;
  value: string;
}

/** Tags of a backup's monitor (`tags: [{name, color, value}]`, Kuma's `toJSON`); anything else → none. */
export function kumaTags(v: unknown): KumaTag[] {
  if (!Array.isArray(v)) return [];
  return v.flatMap((t) => {
    const x = t as { name?: unknown; color?: unknown; value?: unknown };
    return typeof x?.name === 'string' ? [{ name: x.name, color: typeof x.color === 'string' ? x.color : '', value: typeof x.value === 'string' ? x.value : '' }] : [];
  });
}

/** One Kuma notification: its `config` JSON holds `type` and the provider's fields. */
export interface KumaNotification {
  id: number;
  name: string;
  active: boolean;
  isDefault: boolean;
  config: Record<string, unknown>;
}

/** One status page with its groups in order, each with its monitors in order. */
export interface KumaStatusPage {
  id: number;
  slug: string;
  title: string;
  description: string | null;
  /** Footer text (Kuma's `footer_text`, markdown) and theme (`light`, `dark`, `auto`); absent from backups. */
  footerText?: string | null;
  theme?: string | null;
  groups: { name: string; monitorIds: number[] }[];
}

/** One maintenance window. */
export interface KumaMaintenance {
  id: number;
  title: string;
  description: string;
  /** `single` (fixed start and end), `manual`, `recurring-interval`, `recurring-weekday`, `recurring-day-of-month`, `cron`. */
  strategy: string;
  active: boolean;
  /** `YYYY-MM-DD HH:MM[:SS]` wall time in `timezone` (Kuma's storage), or null. */
  startDate: string | null;
  endDate: string | null;
  /** IANA zone, `UTC`, `SAME_AS_SERVER` or null. */
  timezone: string | null;
  /** Recurring strategies (absent in old databases): time of day `HH:MM[:SS]` in `timezone`. */
  startTime?: string | null;
  endTime?: string | null;
  /** `recurring-weekday`: 1 = Monday … 7 = Sunday. */
  weekdays?: number[];
  /** `recurring-day-of-month`: 1–31 or `lastDay1`…`lastDay4`. */
  daysOfMonth?: Array<number | string>;
  /** `recurring-interval`: every this many days. */
  intervalDay?: number | null;
  /** `cron` strategy: the expression and each run's length in seconds. */
  cron?: string | null;
  durationSeconds?: number | null;
  monitorIds: number[];
  statusPageIds: number[];
}

/** Everything read from one Kuma instance. */
export interface KumaData {
  /** `1.23` (kuma.db without knex migrations), `2.x` (with), or `backup` (JSON export). */
  source: '1.23' | '2.x' | 'backup';
  monitors: KumaMonitor[];
  notifications: KumaNotification[];
  statusPages: KumaStatusPage[];
  maintenance: KumaMaintenance[];
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : v == null ? null : String(v));
const num = (v: unknown, fallback: number): number => (typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : fallback);
const bool = (v: unknown): boolean => v === true || v === 1 || v === '1' || v === 'true';

/** Parses a JSON array of status codes, or returns Kuma's default `["200-299"]`. */
export function statusCodes(v: unknown): string[] {
  if (Array.isArray(v)) return v.map(String);
  if (typeof v === 'string') {
    try {
      const parsed: unknown = JSON.parse(v);
      if (Array.isArray(parsed)) return parsed.map(String);
    } catch {
      // fall through to the default
    }
  }
  return ['200-299'];
}

/**
 * A monitor from a row of Kuma's `monitor` table (snake_case columns) or a monitor of a JSON
 * backup (Kuma's `toJSON`, camelCase with a few snake_case fields): both spellings are read.
 */
export function kumaMonitor(r: Record<string, unknown>, notificationIds: number[], tags: KumaTag[] = kumaTags(r.tags)): KumaMonitor {
  const pick = (...keys: string[]) => keys.map((k) => r[k]).find((v) => v !== undefined);
  return {
    id: num(r.id, 0),
    name: str(r.name) ?? `monitor ${String(r.id)}`,
    type: str(r.type) ?? 'http',
    active: bool(pick('active')),
    url: str(r.url),
    hostname: str(r.hostname),
    port: r.port == null ? null : num(r.port, 0) || null,
    method: str(r.method),
    body: str(r.body),
    headers: str(r.headers),
    basicAuthUser: str(pick('basic_auth_user', 'basicAuthUser')),
    basicAuthPass: str(pick('basic_auth_pass', 'basicAuthPass')),
    intervalSeconds: num(r.interval, 60),
    retryIntervalSeconds: num(pick('retry_interval', 'retryInterval'), 0),
    maxRetries: num(r.maxretries, 0),
    timeoutSeconds: pick('timeout') == null ? null : num(pick('timeout'), 0) || null,
    keyword: str(r.keyword),
    invertKeyword: bool(pick('invert_keyword', 'invertKeyword')),
    ignoreTls: bool(pick('ignore_tls', 'ignoreTls')),
    upsideDown: bool(pick('upside_down', 'upsideDown')),
    maxRedirects: num(r.maxredirects, 10),
    acceptedStatusCodes: statusCodes(pick('accepted_statuscodes_json', 'accepted_statuscodes')),
    dnsResolveType: str(r.dns_resolve_type),
    dnsResolveServer: str(r.dns_resolve_server),
    jsonPath: str(pick('json_path', 'jsonPath')),
    expectedValue: str(pick('expected_value', 'expectedValue')),
    jsonPathOperator: str(pick('json_path_operator', 'jsonPathOperator')),
    databaseConnectionString: str(pick('database_connection_string', 'databaseConnectionString')),
    notificationIds,
    tags,
    parentId: r.parent == null ? null : num(r.parent, 0) || null,
    dockerContainer: str(pick('docker_container', 'dockerContainer')),
    dockerDaemon: str(pick('docker_daemon', 'dockerDaemon')),
    dockerType: str(pick('docker_type', 'dockerType')),
    mqttTopic: str(pick('mqtt_topic', 'mqttTopic')),
    mqttSuccessMessage: str(pick('mqtt_success_message', 'mqttSuccessMessage')),
    mqttUsername: str(pick('mqtt_username', 'mqttUsername')),
    mqttPassword: str(pick('mqtt_password', 'mqttPassword')),
    mqttCheckType: str(pick('mqtt_check_type', 'mqttCheckType')),
    smtpSecurity: str(pick('smtp_security', 'smtpSecurity')),
    wsIgnoreAcceptHeader: bool(pick('ws_ignore_sec_websocket_accept_header', 'wsIgnoreSecWebsocketAcceptHeader')),
    authMethod: str(pick('auth_method', 'authMethod')),
    tlsCert: str(pick('tls_cert', 'tlsCert')),
    tlsKey: str(pick('tls_key', 'tlsKey')),
    tlsCa: str(pick('tls_ca', 'tlsCa')),
    oauthTokenUrl: str(pick('oauth_token_url', 'oauth_token_url')),
    oauthClientId: str(pick('oauth_client_id')),
    oauthClientSecret: str(pick('oauth_client_secret')),
    oauthScopes: str(pick('oauth_scopes')),
    snmpOid: str(pick('snmp_oid', 'snmpOid')),
    snmpVersion: str(pick('snmp_version', 'snmpVersion')),
    radiusPassword: str(pick('radius_password', 'radiusPassword')),
    game: str(r.game),
    gamedigGivenPortOnly: pick('gamedig_given_port_only', 'gamedigGivenPortOnly') === undefined ? undefined : bool(pick('gamedig_given_port_only', 'gamedigGivenPortOnly')),
    databaseQuery: str(pick('database_query', 'databaseQuery')),
    description: str(r.description),
    expiryNotification: bool(pick('expiry_notification', 'expiryNotification')),
    pushToken: str(pick('push_token', 'pushToken')),
  };
}

/** A notification from a table row or a backup entry (`config` is JSON text in both). */
export function kumaNotification(r: Record<string, unknown>): KumaNotification {
  let config: Record<string, unknown> = {};
  try {
    const parsed: unknown = typeof r.config === 'string' ? JSON.parse(r.config) : r.config;
    if (parsed && typeof parsed === 'object') config = parsed as Record<string, unknown>;
  } catch {
    // an unreadable config maps to nothing; the importer names it
  }
  return { id: num(r.id, 0), name: str(r.name) ?? `notification ${String(r.id)}`, active: r.active === undefined ? true : bool(r.active), isDefault: bool(r.is_default ?? r.isDefault), config };
}

/**
 * Parses Kuma's JSON backup (Settings → Backup → Export, 1.x): `{version, notificationList,
 * monitorList}`; monitors list their notifications as `notificationIDList: {"<id>": true}`.
 * Backups hold no status pages and no maintenance.
 * @throws Error naming what is missing when the text is not such a backup
 */
export function parseKumaBackup(text: string): KumaData {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new Error(`not a Kuma JSON backup: ${(e as Error).message}`);
  }
  const d = doc as { monitorList?: unknown; notificationList?: unknown };
  if (!d || typeof d !== 'object' || !Array.isArray(d.monitorList)) throw new Error('not a Kuma JSON backup: no monitorList array');
  const notifications = (Array.isArray(d.notificationList) ? d.notificationList : []).map((n) => kumaNotification(n as Record<string, unknown>));
  const monitors = (d.monitorList as Record<string, unknown>[]).map((m) => {
    const list = m.notificationIDList && typeof m.notificationIDList === 'object' ? (m.notificationIDList as Record<string, unknown>) : {};
    const ids = Object.entries(list)
      .filter(([, on]) => bool(on))
      .map(([id]) => Number(id))
      .filter(Number.isInteger)
      .sort((a, b) => a - b);
    return kumaMonitor(m, ids);
  });
  return { source: 'backup', monitors, notifications, statusPages: [], maintenance: [] };
}
