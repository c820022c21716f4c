import { z } from 'zod';
import { invalid } from '../lib/errors.ts';
import { LocalizedTextSchema, type LocalizedText } from './localized.ts';

/** Incident types (API.md §2.5). */
export const INCIDENT_TYPES = ['outage', 'incident'] as const;
export type IncidentType = (typeof INCIDENT_TYPES)[number];
/** Update types (API.md §2.5, §3). */
export const UPDATE_TYPES = ['investigating', 'identified', 'update', 'monitoring', 'resolved'] as const;
export type UpdateType = (typeof UPDATE_TYPES)[number];

/** Component statuses (CONTRACT.md "Components"). */
export const COMPONENT_STATUSES = ['operational', 'degraded', 'partial_outage', 'major_outage', 'maintenance'] as const;
export type ComponentStatus = (typeof COMPONENT_STATUSES)[number];

/** A component: something no probe sees, its status set by hand (`comp_…`). */
export interface Component {
  id: number;
  uuid: string;
  name: string;
  description: string | null;
  status: ComponentStatus;
  createdAt: number;
  updatedAt: number;
}

/** One update of an incident's timeline. `at` is epoch ms; `uuid` (`upd_…`) names it (the hosted service's clients need one). */
export interface IncidentUpdate {
  uuid: string;
  at: number;
  text: LocalizedText;
  type: UpdateType;
}

/** A status-page incident (`inci_…`); `updates` sorted by date, oldest first. */
export interface Incident {
  id: number;
  uuid: string;
  title: LocalizedText;
  type: IncidentType;
  affectedComponents: string[];
  statuspages: string[];
  updates: IncidentUpdate[];
  /** When the incident started (the `date` clients give), or null: its creation. Epoch ms. */
  startedAt: number | null;
  createdAt: number;
  updatedAt: number;
}

const isoDate = z
  .string({ error: 'must be an ISO 8601 date-time such as 2026-05-01T22:00:00Z' })
  .refine((s) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(s) && !Number.isNaN(Date.parse(s)), 'must be an ISO 8601 date-time such as 2026-05-01T22:00:00Z');

/** An optional date: an ISO 8601 date-time, or `""` / null for "now" (the hosted service's clients send `""`). */
const optionalDate = z
  .string({ error: 'must be an ISO 8601 date-time such as 2026-05-01T22:00:00Z' })
  .refine((s) => s === '' || (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(s) && !Number.isNaN(Date.parse(s))), 'must be an ISO 8601 date-time such as 2026-05-01T22:00:00Z')
  .nullable()
  .optional();

/** Body of POST /v3/incidents/{uuid}/updates, and of each entry of `updates` (API.md §2.5). */
export const IncidentUpdateBody = z.object({
  date: optionalDate,
  text: LocalizedTextSchema,
  type: z.enum(UPDATE_TYPES, { error: `must be one of ${UPDATE_TYPES.join(', ')}` }),
});
export type IncidentUpdateInput = z.infer<typeof IncidentUpdateBody>;

/**
 * Body of POST/PUT /v3/incidents: `title` and `type` required on create (API.md §2.5); PUT takes any
 * subset ({@link IncidentPatchBody}). `date` is when it started; `text` (the hosted service's
 * clients send it) becomes the first update, `investigating`, when no `updates` are given.
 */
export const IncidentBody = z.object({
  title: LocalizedTextSchema,
  type: z.enum(INCIDENT_TYPES, { error: `must be one of ${INCIDENT_TYPES.join(', ')}` }),
  date: optionalDate,
  text: LocalizedTextSchema.nullable().optional(),
  affectedComponents: z.array(z.string({ error: 'must be uuids' }), { error: 'must be an array of monitor, healthcheck or component uuids' }).max(1000).optional(),
  statuspages: z.array(z.string({ error: 'must be status page uuids' }), { error: 'must be an array of status page uuids' }).max(1000).optional(),
  updates: z.array(IncidentUpdateBody, { error: 'must be an array of {date, text, type}' }).max(1000).optional(),
});
export type IncidentBodyInput = z.infer<typeof IncidentBody>;
/** PUT body: every field optional, merged into the stored incident (CONTRACT.md "Errors and validation"). */
export const IncidentPatchBody = IncidentBody.partial();
export type IncidentPatchInput = z.infer<typeof IncidentPatchBody>;

/** Body of POST/PUT /v1/components (CONTRACT.md "Components"). */
export const ComponentBody = z.object({
  name: z.string({ error: 'is required and must be a string' }).trim().min(1, 'must not be empty').max(255, 'must be at most 255 characters'),
  description: z.string({ error: 'must be a string' }).max(2000, 'must be at most 2000 characters').nullable().optional(),
  status: z.enum(COMPONENT_STATUSES, { error: `must be one of ${COMPONENT_STATUSES.join(', ')}` }).optional(),
});
export type ComponentBodyInput = z.infer<typeof ComponentBody>;

/** An update input → stored shape with a new `uuid`; the date defaults to `now` (epoch ms). */
export function toIncidentUpdate(u: IncidentUpdateInput, now: number, uuid: string): IncidentUpdate {
  return { uuid, at: u.date ? Date.parse(u.date) : now, text: u.text, type: u.type };
}

/**
 * Checks references: every affected component is a known monitor, healthcheck or component uuid,
 * every status page exists (CONTRACT.md "Incidents").
 * @throws AppError 400 naming `affectedComponents` or `statuspages`
 */
export function checkIncidentRefs(body: Pick<IncidentBodyInput, 'affectedComponents' | 'statuspages'>, knownAffected: (uuid: string) => boolean, knownStatuspage: (uuid: string) => boolean): void {
  const badComponent = (body.affectedComponents ?? []).find((u) => !knownAffected(u));
  if (badComponent !== undefined) throw invalid('affectedComponents', `unknown monitor, healthcheck or component "${badComponent}"`);
  const badPage = (body.statuspages ?? []).find((u) => !knownStatuspage(u));
  if (badPage !== undefined) throw invalid('statuspages', `unknown status page "${badPage}"`);
}

/** True when the newest update (by date) is `resolved`: status pages show the incident as resolved. */
export function isIncidentResolved(updates: readonly IncidentUpdate[]): boolean {
  return updates.length > 0 && updates.reduce((a, b) => (b.at >= a.at ? b : a)).type === 'resolved';
}
