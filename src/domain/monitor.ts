import { z } from 'zod';
import { AppError, invalid } from '../lib/errors.ts';
import { PROTOCOL_DEFINITIONS, PROTOCOL_FIELDS, PROTOCOLS, protocolDefinition, type Protocol, type ProbeTarget } from '../protocols/index.ts';
import { resolvePolicyRef } from './escalation.ts';
import { REGIONS, type Region } from './regions.ts';
import { GroupName, MonitorTagsField, type MonitorTag, type TagRef } from './tags.ts';

export { PROTOCOLS, type Protocol, type ProbeTarget } from '../protocols/index.ts';
export { HTTP_METHODS, parseExpectedStatus, statusMatches, type HttpMethod, type StatusRange } from '../protocols/seed.ts';
export { describeNetworkError } from '../protocols/errors.ts';

/** Allowed check frequencies in seconds (API.md §8). */
export const CHECK_FREQUENCIES_S = [10, 20, 30, 60, 120, 180, 300, 600, 1800, 3600, 21600, 43200, 86400] as const;

/** Allowed `alerts_wait` values in minutes; -1 disables alerts (API.md §8). */
export const ALERTS_WAIT_MIN = [-1, 0, 1, 2, 3, 5, 10, 30, 60] as const;

/** Monitor status (API.md §3). */
export type MonitorStatus = 'up' | 'down';

/** A protocol's own settings: its API fields (snake_case) as its definition validated them (src/protocols/). */
export type ProtocolSettings = Record<string, unknown>;

/** A monitor as the core and store see it. Units are in the names (house rule 9). */
export interface Monitor {
  /** Integer id (SQLite rowid); shown as `id` and `sort_order` for the hosted service's clients. */
  id: number;
  uuid: string;
  name: string;
  /** The target: a URL, a host or a connection URL, as the protocol's definition reads it. */
  url: string;
  protocol: Protocol;
  checkFrequencySeconds: number;
  regions: Region[];
  status: MonitorStatus;
  paused: boolean;
  port: number | null;
  sslExpirationDays: number | null;
  /** Its registrable domain's expiration read over RDAP (issue 36), epoch ms; absent until read. */
  domainExpiresAt?: number | null;
  /** The last check passed but was slower than the protocol's degraded threshold (http `degraded_after_ms`). */
  degraded: boolean;
  alertsWaitMinutes: number;
  escalationPolicyUuid: string | null;
  timeoutSeconds: number;
  /** The protocol's settings (stored as one validated JSON column). */
  settings: ProtocolSettings;
  /** Its badges (`/badge/monitors/<uuid>/…`, issue 33) are served to anyone; off by default. */
  publicBadges: boolean;
  /** Its tags (issue 33 point 5), in the order given, with each tag's colour (domain/tags.ts). */
  tags: MonitorTag[];
  /** Its group (a plain name used to group rows), or null. */
  group: string | null;
  /** Uuids of the monitors it depends on (issue 36): while one is down, its alerts are held. Absent: none. */
  dependsOn?: string[];
  createdAt: number;
  updatedAt: number;
}

/** The settings a client controls: everything of {@link Monitor} but identity, state and timestamps. */
export type MonitorSettings = Omit<Monitor, 'id' | 'uuid' | 'status' | 'sslExpirationDays' | 'domainExpiresAt' | 'degraded' | 'createdAt' | 'updatedAt' | 'tags'> & {
  /** Its tags by name and value; a name not yet stored makes a tag of its default colour. */
  tags: TagRef[];
};

const oneOf = (values: readonly (string | number)[]) => `must be one of ${values.join(', ')}`;

/** The body fields every protocol takes (API.md §2.2). */
const COMMON_FIELDS = {
  name: z.string({ error: 'is required and must be a string' }).trim().min(1, 'must not be empty').max(255, 'must be at most 255 characters'),
  url: z.string({ error: 'is required and must be a string' }).trim().min(1, 'must not be empty').max(2048, 'must be at most 2048 characters'),
  protocol: z.enum(PROTOCOLS, { error: oneOf(PROTOCOLS) }).optional(),
  check_frequency: z
    .number({ error: `must be a number, one of ${CHECK_FREQUENCIES_S.join(', ')}` })
    .refine((v) => (CHECK_FREQUENCIES_S as readonly number[]).includes(v), oneOf(CHECK_FREQUENCIES_S))
    .meta({ enum: [...CHECK_FREQUENCIES_S], description: 'seconds' })
    .optional(),
  regions: z
    .array(z.enum(REGIONS, { error: oneOf(REGIONS) }), { error: 'must be an array of region names' })
    .min(1, 'must name at least one region')
    .refine((r) => new Set(r).size === r.length, 'must not repeat a region')
    .optional(),
  port: z.number({ error: 'must be an integer from 1 to 65535' }).int('must be an integer from 1 to 65535').min(1, 'must be an integer from 1 to 65535').max(65535, 'must be an integer from 1 to 65535').nullable().optional(),
  paused: z.boolean({ error: 'must be a boolean' }).optional(),
  alerts_wait: z
    .number({ error: `must be a number, one of ${ALERTS_WAIT_MIN.join(', ')}` })
    .refine((v) => (ALERTS_WAIT_MIN as readonly number[]).includes(v), oneOf(ALERTS_WAIT_MIN))
    .meta({ enum: [...ALERTS_WAIT_MIN], description: 'minutes; -1 never alerts' })
    .optional(),
  timeout: z.number({ error: 'must be an integer from 1 to 60 (seconds)' }).int('must be an integer from 1 to 60 (seconds)').min(1, 'must be an integer from 1 to 60 (seconds)').max(60, 'must be an integer from 1 to 60 (seconds)').optional(),
  escalation_policy: z.string({ error: 'must be a policy uuid or "none"' }).nullable().optional(),
  public_badges: z.boolean({ error: 'must be a boolean' }).meta({ description: 'serve this monitor\'s badges to anyone (default false)' }).optional(),
  tags: MonitorTagsField.meta({ description: 'tags, each "name" or "name:value" (Uptime Kuma\'s `env:prod`); replaces the list; a new name makes a tag (colours: /v1/tags)' }).optional(),
  group: GroupName.meta({ description: 'the group it belongs to (a plain name); null or "" for none' }).optional(),
  depends_on: z
    .array(z.string({ error: 'must be an array of monitor uuids' }), { error: 'must be an array of monitor uuids' })
    .max(50, 'must name at most 50 monitors')
    .meta({ description: 'uuids of the monitors this one depends on (issue 36): while one of them is down, this monitor is still checked and its outages recorded, but no alert goes out for it; replaces the list; unknown uuids and cycles are refused' })
    .optional(),
};

/**
 * Body of POST and PUT /v1/monitors (API.md §2.2): the common fields plus every protocol's fields
 * from the registry (src/protocols/), all optional. Unknown fields are dropped; numbers given as
 * strings are refused, except `expected_status_code` (CONTRACT.md "Errors and validation").
 * Which protocol may take which field is checked in {@link resolveMonitorSettings}.
 * Defaults are not applied here: PUT keeps the current value of a field left out.
 */
export const MonitorBody = z.object({
  ...COMMON_FIELDS,
  ...(Object.fromEntries([...PROTOCOL_FIELDS].map(([name, f]) => [name, f.schema.optional().meta({ description: `protocols: ${f.protocols.join(', ')}` })])) as ProtocolBodyFields),
});

/** Every protocol's fields, optional (the body's protocol part). */
type ProtocolBodyFields = {
  [P in Protocol as keyof (typeof PROTOCOL_DEFINITIONS)[P]['fields'] & string]: z.ZodOptional<z.ZodType>;
};

/** Parsed monitor body. */
export type MonitorBodyInput = z.infer<typeof MonitorBody>;

/** Defaults of a new monitor (API.md §2.2, CONTRACT.md "Monitors"): an http monitor. */
export function monitorDefaults(localRegion: Region): Omit<MonitorSettings, 'name' | 'url' | 'tags'> & { tags: MonitorTag[] } {
  return {
    protocol: 'http',
    checkFrequencySeconds: 30,
    regions: [localRegion],
    paused: false,
    port: null,
    alertsWaitMinutes: 0,
    escalationPolicyUuid: null,
    timeoutSeconds: 10,
    settings: { ...PROTOCOL_DEFINITIONS.http.defaults },
    publicBadges: false,
    tags: [],
    group: null,
  };
}

/**
 * Merges a validated body over `base` (defaults on create, the current settings on update) and
 * checks the rules that span fields. Fields left out of the body keep `base`'s value
 * (CONTRACT.md: PUT takes the create body; left-out optional fields keep their current values).
 * A protocol's settings start from `base`'s when the protocol stays, else from the new protocol's
 * defaults (a stored monitor's settings of a former protocol are dropped).
 * CONTRACT.md ignores unknown fields; a field that belongs to *another* protocol is refused (400
 * naming every such field), since the client surely meant something by it.
 * @param knownPolicy returns true when an escalation policy uuid exists
 * @throws AppError 400 naming the field and the rule
 */
export function resolveMonitorSettings(
  body: MonitorBodyInput,
  base: Omit<MonitorSettings, 'name' | 'url'>,
  knownPolicy: (uuid: string) => boolean,
): MonitorSettings {
  const protocol = body.protocol ?? base.protocol;
  const def = protocolDefinition(protocol);
  const given = body as Record<string, unknown>;
  const foreign = [...PROTOCOL_FIELDS.keys()].filter((f) => given[f] !== undefined && !(f in def.fields));
  if (foreign.length > 0) {
    const rule = `not a setting of protocol "${protocol}"`;
    throw new AppError(400, 'validation.invalid', `${foreign.join(', ')}: ${rule}`, foreign.map((path) => ({ path, message: `${rule} (it belongs to ${PROTOCOL_FIELDS.get(path)!.protocols.join(', ')})` })));
  }
  const from = protocol === base.protocol ? base.settings : (def.defaults as ProtocolSettings);
  const settings: ProtocolSettings = {};
  for (const f of Object.keys(def.fields)) settings[f] = given[f] !== undefined ? given[f] : f in from ? from[f] : (def.defaults as ProtocolSettings)[f];
  const escalationPolicyUuid = resolvePolicyRef(body.escalation_policy, base.escalationPolicyUuid, knownPolicy);
  const s: MonitorSettings = {
    name: body.name,
    url: body.url,
    protocol,
    checkFrequencySeconds: body.check_frequency ?? base.checkFrequencySeconds,
    regions: body.regions ?? base.regions,
    paused: body.paused ?? base.paused,
    port: body.port !== undefined ? body.port : base.port,
    alertsWaitMinutes: body.alerts_wait ?? base.alertsWaitMinutes,
    escalationPolicyUuid,
    timeoutSeconds: body.timeout ?? base.timeoutSeconds,
    settings,
    publicBadges: body.public_badges ?? base.publicBadges,
    tags: body.tags ?? base.tags.map((t) => ({ name: t.name, value: t.value })),
    group: body.group !== undefined ? body.group : base.group,
    dependsOn: body.depends_on !== undefined ? [...new Set(body.depends_on)] : base.dependsOn,
  };
  def.validate?.(settings);
  if (s.timeoutSeconds > s.checkFrequencySeconds) {
    throw invalid('timeout', `must not be longer than check_frequency (${s.checkFrequencySeconds} s)`);
  }
  probeTarget(s);
  return s;
}

/**
 * Derives the probe target from the settings and validates `url` for the protocol (each
 * protocol's `target()`: `http` needs an absolute http(s) URL; `port` and `icmp` take a host name
 * or IP, or a URL whose host is taken, CONTRACT.md "Monitors"). An explicit `port` wins.
 * @throws AppError 400 (`url: …`, `port: …`) when the url does not fit the protocol
 */
export function probeTarget(s: Pick<MonitorSettings, 'url' | 'protocol' | 'port'>): ProbeTarget {
  return protocolDefinition(s.protocol).target(s.url, s.port);
}

/** The monitor fields the API shows for `m`'s protocol (its definition's `show`, or its settings). */
export function protocolFieldsJson(m: Pick<Monitor, 'protocol' | 'settings'>): Record<string, unknown> {
  const def = protocolDefinition(m.protocol);
  return def.show ? def.show(m.settings) : m.settings;
}

/** What the overview shows of one monitor (see {@link consoleReadsStore}'s `monitorStats`). */
export interface MonitorStats {
  /** Its newest check, epoch ms, or null before the first (pending). */
  lastAt: number | null;
}
