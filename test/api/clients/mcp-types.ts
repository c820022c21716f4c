import { arr, bool, date, int, map, nullable, num, obj, optional, str, type Spec } from './shapes.ts';
import { go } from './types.ts';

// hyperping-go's MCP result types, field by field (rules: shapes.ts), transcribed from
// develeap/hyperping-go mcp_models.go at commit 5bcee1c ("feat(mcp): add CreateMonitor/UpdateMonitor/
// DeleteMonitor write tools (GO-13)"), with which tool answers which type from mcp_client.go there.
// A Go `string` that Pharos may send as null is marked nullable (null leaves ""), as in types.ts.

const period = obj({ date: str, uptime: num });

/** Each tool's result type (what mcp_client.go decodes `content[0].text` into). */
export const mcp = {
  /** StatusSummary. */
  get_status_summary: obj({ total: int, up: int, down: int, paused: int, unknown: int, down_monitors: arr(str), paused_monitors: arr(str) }),
  /** MonitorList{Monitors []Monitor (models_monitor.go), Total, Page, Limit}. */
  list_monitors: obj({ monitors: arr(go.Monitor), total: int, page: int, limit: int }),
  /** MonitorDetails (also create_monitor, update_monitor). */
  get_monitor: obj({
    uuid: str,
    name: str,
    url: str,
    status: str,
    method: str,
    frequency: int,
    expected_status: int,
    regions: arr(str),
    created_at: str,
    updated_at: str,
    tags: optional(arr(str)),
    escalation_policy: optional(nullable(str)),
    custom_headers: optional(map(str)),
  }),
  /** []Monitor. */
  search_monitors_by_name: arr(go.Monitor),
  /** MonitorUptimeResponse (top-level averageUptime a string, per-monitor a number). */
  get_monitor_uptime: obj({
    monitors: arr(obj({ uuid: str, name: str, protocol: str, uptimePeriods: arr(period), averageUptime: num, outageCount: int, totalDowntime: num, mttr: num, longestOutage: num })),
    periodAverages: arr(period),
    totalOutages: int,
    totalOutagesLength: int,
    MTTR: num,
    averageUptime: str,
  }),
  /** MonitorResponseTimeResponse (avgResponseTimeByRegion values *float64: null for a region without probes). */
  get_monitor_response_time: obj({
    timeGroups: arr(obj({ time: str, avgResponseTime: num, count: int })),
    avgResponseTime: num,
    p95ResponseTime: num,
    monitors: arr(obj({ uuid: str, name: str, protocol: str, avgResponseTime: num, avgResponseTimeByRegion: map(nullable(num)), count: int })),
  }),
  /** MonitorMttaResponse. */
  get_monitor_mtta: obj({ monitors: arr(obj({ uuid: str, name: str, protocol: str, acknowledged: int, mtta: num })), totalAcknowledged: int, mtta: num }),
  /** MonitorMttrResponse. */
  get_monitor_mttr: obj({
    monitors: arr(obj({ uuid: str, name: str, protocol: str, outageCount: int, totalDowntime: num, mttr: num, mtta: num, longestOutage: num })),
    totalOutages: int,
    totalOutagesLength: int,
    mttr: num,
    mtta: num,
  }),
  /** AlertHistory (v0.7.1). */
  list_recent_alerts: obj({
    timeGroups: arr(obj({ time: str, count: int })),
    totalAlerts: int,
    downAlerts: int,
    upAlerts: int,
    rawAlerts: arr(obj({ uuid: str, monitor_uuid: str, status: str, triggered_at: str, acknowledged_by: optional(str), resolved_at: optional(str) })),
  }),
  /** OnCallSchedule; list_on_call_schedules answers {schedules: []OnCallSchedule}. */
  get_on_call_schedule: obj({ uuid: str, name: str, team: nullable(str), current_oncall: nullable(str), next_oncall: nullable(str), rotation_start: nullable(str), rotation_end: nullable(str) }),
  /** EscalationPolicy; list_escalation_policies answers []EscalationPolicy. */
  get_escalation_policy: obj({ uuid: str, name: str, team: nullable(str), steps: arr(obj({ delay: int, target_type: str, target_id: str })) }),
  /** TeamMember; list_team_members answers []TeamMember. */
  team_member: obj({ uuid: str, email: str, name: str, phone: optional(nullable(str)), profilePictureUrl: optional(str), ssoPictureUrl: nullable(str), accountRole: str }),
  /** Integration; list_integrations answers []Integration. */
  get_integration: obj({ uuid: str, name: str, type: str, enabled: bool, last_test_at: optional(nullable(str)), created_at: str }),
  /** MCPOutage. */
  get_outage: obj({ uuid: str, monitor_uuid: str, status: str, started_at: date, acknowledged_at: optional(nullable(str)), resolved_at: optional(nullable(str)), duration: int }),
  /** OutageTimeline. */
  get_outage_timeline: obj({ uuid: str, monitor_uuid: str, events: arr(obj({ timestamp: str, status: str, user: optional(str), note: optional(str) })) }),
} satisfies Record<string, Spec>;

/** OutageList (list_outages, get_monitor_outages). */
export const mcpOutageList = obj({ outages: arr(mcp.get_outage), total: int });

/**
 * hyperping-go's recorded answers of the hosted MCP server (testdata/mcp_responses/*.json at commit
 * 5bcee1c, probed 2026-06-09), copied verbatim: Pharos's answers must have the same keys and kinds.
 */
export const recorded: Record<string, unknown> = {
  get_status_summary: { total: 1, up: 1, down: 0, paused: 0, unknown: 0, down_monitors: [], paused_monitors: [] },
  list_escalation_policies: [],
  list_integrations: [],
  list_on_call_schedules: { schedules: [] },
  list_recent_alerts: { timeGroups: [], totalAlerts: 0, downAlerts: 0, upAlerts: 0, rawAlerts: [] },
  list_team_members: [{ uuid: 'usr_redacted', email: 'example@example.com', name: 'Example User', phone: '+10000000000', profilePictureUrl: 'https://example.invalid/pic.jpg', ssoPictureUrl: null, accountRole: 'owner' }],
};

/**
 * The tool names of hyperping-go's recorded tools/list (testdata/mcp_tools_list.json at 5bcee1c), less
 * get_monitor_anomalies and get_monitor_http_logs (not served: docs/api.md "MCP (/v1/mcp)"), plus
 * delete_monitor (mcp_client.go DeleteMonitor calls it).
 */
export const RECORDED_TOOL_NAMES = [
  'list_monitors', 'get_monitor', 'create_monitor', 'update_monitor', 'pause_monitor', 'resume_monitor', 'search_monitors_by_name',
  'get_status_summary', 'list_outages', 'get_outage', 'get_outage_timeline', 'get_monitor_outages', 'list_recent_alerts',
  'get_monitor_uptime', 'get_monitor_response_time', 'get_monitor_mttr', 'get_monitor_mtta', 'list_on_call_schedules',
  'get_on_call_schedule', 'list_escalation_policies', 'get_escalation_policy', 'list_team_members', 'list_integrations', 'get_integration',
  'delete_monitor',
];
