import { any, arr, bool, date, flex, int, map, nullable, num, obj, optional, str, type Spec } from './shapes.ts';

// The hosted service's clients' response types, field by field (see shapes.ts for the rules).
// Checked versions: hyperping-go at commit 915625d (models_*.go) with openapi.yaml at a0b1b0b and
// models_statuspage.go at 2879d96; hyperping-python (PyPI `hyperping`) models at 5fce301–06be321.

/** Go `LocalizedText` struct (en, fr, de, ru, nl, es, it, pt, ja, zh; all omitempty strings). */
const goLocalized = map(str);
/** Python `LocalizedText`: `en` required, other languages optional, extra keys allowed. */
const pyLocalized = obj({ en: str, fr: optional(nullable(str)), de: optional(nullable(str)), es: optional(nullable(str)) });

export const go = {
  /** models_monitor.go `Monitor` (escalation_policy: a uuid string or `{uuid, name}`, both decoded). */
  Monitor: obj({
    id: int,
    uuid: str,
    name: str,
    url: str,
    protocol: str,
    projectUuid: str,
    http_method: str,
    regions: arr(str),
    check_frequency: int,
    request_headers: arr(obj({ name: str, value: str })),
    request_body: nullable(str), // Go string: null leaves ""
    follow_redirects: bool,
    expected_status_code: flex,
    required_keyword: nullable(str),
    paused: bool,
    port: nullable(int),
    alerts_wait: int,
    escalation_policy: nullable(obj({ uuid: str, name: str })),
    dns_record_type: optional(nullable(str)),
    dns_nameserver: optional(nullable(str)),
    dns_expected_answer: optional(nullable(str)),
    status: str,
    ssl_expiration: nullable(int),
  }),
  /** models_healthcheck.go `Healthcheck`. */
  Healthcheck: obj({
    uuid: str,
    name: str,
    pingUrl: str,
    cron: nullable(str), // Go string: null (simple mode) leaves ""
    timezone: str,
    tz: str,
    periodValue: nullable(int),
    periodType: nullable(str),
    period: nullable(int), // null in cron mode leaves 0
    gracePeriod: int,
    gracePeriodValue: int,
    gracePeriodType: str,
    isDown: bool,
    isPaused: bool,
    lastPing: nullable(date),
    dueDate: nullable(date),
    createdAt: date,
    lastLogStartDate: nullable(date), // Go string: null leaves ""
    lastLogEndDate: nullable(date),
    escalationPolicy: nullable(obj({ uuid: str, name: str, alertedSteps: optional(int), totalSteps: optional(int) })),
  }),
  /** `HealthcheckAction` (pause, resume). */
  HealthcheckAction: obj({ message: str, uuid: str }),
  /** models_outage.go `Outage` (`monitor` is a struct: null for a manual outage leaves it empty). */
  Outage: obj({
    uuid: str,
    startDate: date,
    endDate: nullable(date),
    durationMs: int,
    statusCode: int,
    description: str,
    outageType: str,
    isResolved: bool,
    detectedLocation: str,
    confirmedLocations: str,
    acknowledgedAt: nullable(date),
    acknowledgedBy: nullable(obj({ uuid: str, email: str, name: str })),
    monitor: nullable(obj({ uuid: str, name: str, url: str, protocol: str })),
    escalationPolicy: nullable(obj({ uuid: str, name: str, alertedSteps: int, totalSteps: int })),
    severity: str,
    summary: nullable(str),
  }),
  /** `OutageAction` (acknowledge, unacknowledge, resolve, escalate). */
  OutageAction: obj({ message: str, uuid: str }),
  /** models_incident.go `Incident` with `IncidentUpdate`. */
  Incident: obj({
    uuid: str,
    date: date,
    title: goLocalized,
    text: nullable(goLocalized),
    type: str,
    affectedComponents: arr(str),
    statuspages: arr(str),
    updates: arr(obj({ uuid: str, date: date, text: goLocalized, type: str })),
  }),
  /** models_maintenance.go `Maintenance`. */
  Maintenance: obj({
    uuid: str,
    name: str,
    title: nullable(goLocalized),
    text: optional(nullable(goLocalized)),
    start_date: nullable(date),
    end_date: nullable(date),
    timezone: str,
    monitors: arr(str),
    statuspages: arr(str),
    createdAt: date,
    notificationOption: str,
    notificationMinutes: nullable(int),
    status: str,
    updates: arr(obj({ text: goLocalized, date: date })),
  }),
  /** models_report.go `MonitorReport` (an ongoing outage's endDate: null leaves ""). */
  MonitorReport: obj({
    uuid: str,
    name: str,
    protocol: str,
    period: obj({ from: date, to: date }),
    sla: num,
    mttr: int,
    mttrFormatted: str,
    outages: obj({
      count: int,
      totalDowntime: int,
      totalDowntimeFormatted: str,
      longestOutage: int,
      longestOutageFormatted: str,
      details: arr(obj({ startDate: date, endDate: nullable(date), duration: int, durationFormatted: str })),
    }),
  }),
  StatusPage: statusPage(),
  /** models_subscriber.go `StatusPageSubscriber`. */
  Subscriber: obj({ id: int, type: str, value: str, language: str, email: nullable(str), phone: nullable(str), slack_channel: nullable(str), created_at: date }),
} as const;

/** models_statuspage.go `StatusPage`, `StatusPageSettings`, `StatusPageSection`, `StatusPageService`. */
function statusPage(): Spec {
  const leaf = { id: nullable(flex), uuid: nullable(str), name: map(str), is_group: bool, show_uptime: bool, show_response_times: bool, description: nullable(map(str)) };
  const service = obj({ ...leaf, services: optional(arr(obj(leaf))) });
  return obj({
    uuid: str,
    name: str,
    hostname: nullable(str),
    hostedsubdomain: str,
    url: str,
    password_protected: bool,
    settings: obj({
      name: str,
      website: nullable(str),
      description: nullable(map(str)),
      languages: arr(str),
      default_language: str,
      theme: str,
      font: str,
      accent_color: str,
      auto_refresh: bool,
      banner_header: bool,
      logo: nullable(str),
      logo_height: str,
      favicon: nullable(str),
      hide_powered_by: bool,
      hide_from_search_engines: bool,
      google_analytics: nullable(str),
      subscribe: obj({ enabled: bool, email: bool, slack: bool, teams: bool, sms: bool }),
      authentication: obj({ password_protection: bool, google_sso: bool, saml_sso: bool, google_allowed_domains: arr(str), sso_connection_uuid: nullable(str) }),
    }),
    sections: arr(obj({ name: map(str), is_split: bool, services: arr(service) })),
    monitors: optional(arr(str)),
  });
}

/** Go list and wrapper shapes. */
export const goWrap = {
  outageList: obj({ outages: arr(go.Outage), hasNextPage: bool }),
  outageGet: obj({ outage: go.Outage }),
  outageCreate: obj({ message: str, outage: go.Outage }),
  healthcheckList: obj({ healthchecks: arr(go.Healthcheck) }),
  healthcheckOne: obj({ healthcheck: go.Healthcheck }),
  healthcheckWrite: obj({ message: str, healthcheck: go.Healthcheck }),
  statusPageList: obj({ statuspages: arr(go.StatusPage), hasNextPage: bool, total: int, page: int, resultsPerPage: int }),
  statusPageOne: obj({ statuspage: go.StatusPage }),
  statusPageWrite: obj({ message: str, statuspage: go.StatusPage }),
  subscriberList: obj({ subscribers: arr(go.Subscriber), hasNextPage: bool, total: int, page: int, resultsPerPage: int }),
  subscriberAdd: obj({ message: str, subscriber: go.Subscriber }),
  reportList: obj({ period: obj({ from: date, to: date }), monitors: arr(go.MonitorReport) }),
};

export const py = {
  /** models/_monitor_models.py `Monitor` (fields with defaults may be absent, but typed when present). */
  Monitor: obj({
    uuid: str,
    name: str,
    url: str,
    projectUuid: optional(nullable(str)),
    protocol: optional(str),
    http_method: optional(nullable(str)),
    check_frequency: optional(int),
    regions: optional(arr(str)),
    request_headers: optional(nullable(arr(obj({ name: str, value: str })))),
    request_body: optional(nullable(str)),
    follow_redirects: optional(bool),
    expected_status_code: optional(nullable(flex)),
    required_keyword: optional(nullable(str)),
    paused: optional(bool),
    port: optional(nullable(int)),
    alerts_wait: optional(nullable(int)),
    escalation_policy: optional(nullable(any)), // a uuid or {uuid, name}: both coerced
    down: optional(bool),
  }),
  /** models/_healthcheck_models.py `Healthcheck`: name, period and grace are required integers. */
  Healthcheck: obj({ uuid: str, name: str, period: int, grace: int, escalation_policy: optional(nullable(str)), project_uuid: optional(nullable(str)), is_paused: optional(bool), is_down: optional(bool), last_pinged_at: optional(nullable(date)) }),
  /** models/_outage_models.py `OutageAction`: `status` is required. */
  OutageAction: obj({ status: str, message: optional(nullable(str)) }),
  /** `Outage`: only `uuid` is required. */
  Outage: obj({ uuid: str, acknowledged: optional(bool), resolved: optional(bool) }),
  /** models/_incident_models.py `Incident`: each update needs a `uuid`; LocalizedText needs `en`. */
  Incident: obj({
    uuid: str,
    date: optional(nullable(str)),
    title: pyLocalized,
    text: optional(nullable(pyLocalized)),
    type: str,
    affectedComponents: optional(arr(str)),
    statuspages: optional(arr(str)),
    updates: optional(arr(obj({ uuid: str, date: str, text: pyLocalized, type: str }))),
  }),
  /** models/_maintenance_models.py `Maintenance`. */
  Maintenance: obj({
    uuid: str,
    name: str,
    title: optional(nullable(pyLocalized)),
    start_date: optional(nullable(str)),
    end_date: optional(nullable(str)),
    timezone: optional(str),
    monitors: optional(arr(str)),
    statuspages: optional(arr(str)),
    createdAt: optional(nullable(str)),
    notificationOption: optional(nullable(str)),
    notificationMinutes: optional(nullable(int)),
  }),
  /** `MonitorReport`: an outage detail's `endDate` is a required string. */
  MonitorReport: obj({
    uuid: str,
    name: str,
    protocol: str,
    period: obj({ from: str, to: str }),
    sla: num,
    mttr: optional(int),
    mttrFormatted: optional(str),
    outages: obj({
      count: optional(int),
      totalDowntime: optional(int),
      totalDowntimeFormatted: optional(str),
      longestOutage: optional(int),
      longestOutageFormatted: optional(str),
      details: optional(arr(obj({ startDate: str, endDate: str }))),
    }),
  }),
  /** models/_statuspage_models.py `StatusPage`: the bare object with a top-level `subdomain`. */
  StatusPage: obj({ uuid: str, name: str, subdomain: str, customDomain: optional(nullable(str)), public: optional(bool), monitors: optional(arr(str)) }),
} as const;
