import type { OnCallSchedule } from '../../domain/on-call/schedule.ts';
import { localDateOf } from '../../domain/on-call/zone.ts';
import { AppError } from '../../lib/errors.ts';
import { ZodError } from 'zod';
import { fromZodError } from '../errors.ts';
import type { FormErrors, FormValues } from '../../../views/console/model.ts';
import type { LayerFormValues, ScheduleFormValues } from '../../../views/console/on-call-form.tsx';
import { numberish, text } from './forms.ts';

/**
 * The on-call schedule editor's form ↔ the API body (issue 34 point 2): field names `layer_{i}_…`
 * (people as one select per turn, restriction windows `layer_{i}_r{k}_…`), the `op` buttons that
 * add or remove a layer, a person slot or a window, and the API's refusals placed beside the field.
 */

const MAX = 50;
const count = (f: FormValues, name: string, min: number) => Math.min(Math.max(Number.parseInt(text(f, name), 10) || min, min), MAX);
const list = (f: FormValues, name: string): string[] => {
  const x = f[name];
  return x === undefined ? [] : Array.isArray(x) ? x : [x];
};

/** A new layer: weekly, hand-off 09:00, starting today (`today` `YYYY-MM-DD`), three empty slots. */
export const blankLayer = (i: number, today: string): LayerFormValues => ({ name: `Layer ${i + 1}`, users: ['', '', ''], type: 'weekly', length: '', unit: 'days', handoff: '09:00', start_date: today, restrictions: [] });

/** The empty editor (time zone UTC) as of epoch ms `now`. */
export function blankSchedule(now: number): ScheduleFormValues {
  const d = localDateOf('UTC', now);
  const today = `${d.year}-${String(d.month).padStart(2, '0')}-${String(d.day).padStart(2, '0')}`;
  return { name: '', team: '', description: '', time_zone: 'UTC', layers: [blankLayer(0, today)] };
}

/** The posted editor as typed. */
export function scheduleFormOf(f: FormValues): ScheduleFormValues {
  const layers = Array.from({ length: count(f, 'layers', 1) }, (_, i): LayerFormValues => {
    const p = `layer_${i}_`;
    return {
      name: text(f, `${p}name`),
      users: Array.from({ length: count(f, `${p}slots`, 1) }, (_, j) => text(f, `${p}user_${j}`)),
      type: text(f, `${p}type`) || 'weekly',
      length: text(f, `${p}length`),
      unit: text(f, `${p}unit`) || 'days',
      handoff: text(f, `${p}handoff`),
      start_date: text(f, `${p}start_date`),
      restrictions: Array.from({ length: Math.min(Number.parseInt(text(f, `${p}windows`), 10) || 0, MAX) }, (_, k) => ({ days: list(f, `${p}r${k}_days`), start: text(f, `${p}r${k}_start`), end: text(f, `${p}r${k}_end`) })),
    };
  });
  return { name: text(f, 'name'), team: text(f, 'team'), description: text(f, 'description'), time_zone: text(f, 'time_zone'), layers };
}

/** A stored schedule as the editor shows it (one empty person slot more to add someone). */
export function scheduleValues(s: OnCallSchedule): ScheduleFormValues {
  return {
    name: s.name,
    team: s.team ?? '',
    description: s.description ?? '',
    time_zone: s.timeZone,
    layers: s.layers.map((l) => ({
      name: l.name,
      users: [...l.users, ''],
      type: l.rotation.type,
      length: l.rotation.type === 'custom' ? String(l.rotation.length) : '',
      unit: l.rotation.unit,
      handoff: l.rotation.handoffTime,
      start_date: l.rotation.startDate,
      restrictions: l.restrictions.map((r) => ({ days: r.days.map(String), start: r.start, end: r.end })),
    })),
  };
}

/** "Add layer" / "Remove layer i" / "Add person i" / "Add window i": the editor changed (nothing saved), or null to save. */
export function editedSchedule(v: ScheduleFormValues, op: string): ScheduleFormValues | null {
  const layers = v.layers.map((l) => ({ ...l, users: [...l.users], restrictions: [...l.restrictions] }));
  if (op === 'add-layer') return { ...v, layers: [...layers, blankLayer(layers.length, layers[0]?.start_date ?? '')] };
  const m = /^(remove-layer|add-person|add-window)-(\d+)$/.exec(op);
  const l = m ? layers[Number(m[2])] : undefined;
  if (!m || !l) return null;
  if (m[1] === 'remove-layer') return { ...v, layers: layers.length > 1 ? layers.filter((_, i) => i !== Number(m[2])) : layers };
  if (m[1] === 'add-person') l.users.push('');
  else l.restrictions.push({ days: [], start: '09:00', end: '18:00' });
  return { ...v, layers };
}

/**
 * The editor as the API's create body (what CreateBody then checks): empty person slots and
 * untouched windows (no day ticked) left out; numbers typed as text stay text so the schema names them.
 */
export function scheduleBody(v: ScheduleFormValues): unknown {
  return {
    name: v.name,
    team: v.team.trim() === '' ? null : v.team,
    description: v.description.trim() === '' ? null : v.description,
    time_zone: v.time_zone.trim(),
    layers: v.layers.map((l) => ({
      name: l.name.trim() === '' ? undefined : l.name,
      users: l.users.filter((u) => u !== ''),
      rotation: {
        type: l.type,
        ...(l.type === 'custom' ? { length: numberish(l.length), unit: l.unit } : {}),
        handoff_time: l.handoff.slice(0, 5),
        start_date: l.start_date,
      },
      restrictions: l.restrictions.filter((w) => w.days.length > 0).map((w) => ({ days: w.days.map((d) => numberish(d)), start: w.start.slice(0, 5), end: w.end.trim() })),
    })),
  };
}

const FIELD: Record<string, string> = { name: 'name', users: 'users', 'rotation.type': 'type', 'rotation.length': 'length', 'rotation.unit': 'unit', 'rotation.handoff_time': 'handoff', 'rotation.start_date': 'start_date' };

/** Where the editor shows an API path: `layers[0].rotation.handoff_time` → `layer_0_handoff`, `layers[1].restrictions[0].days` → `layer_1_r0_days`. */
export function scheduleField(path: string): string {
  const p = path.replace(/\.(\d+)(?=\.|$)/g, '[$1]');
  const w = /^layers\[(\d+)\]\.restrictions\[(\d+)\]\.(days|start|end)/.exec(p);
  if (w) return `layer_${w[1]}_r${w[2]}_${w[3]}`;
  const l = /^layers\[(\d+)\]\.(name|users|rotation\.\w+)/.exec(p);
  if (l) return `layer_${l[1]}_${FIELD[l[2]!] ?? 'name'}`;
  return p.replace(/\[.*$/, '').split('.')[0]!;
}

/** A refusal (zod's or core's) as the editor shows it: the message, and the rule beside its field. Not a 4xx → rethrown. */
export function scheduleFormErrors(e: unknown): FormErrors {
  if (e instanceof ZodError) e = fromZodError(e, 'json');
  if (!(e instanceof AppError) || e.status >= 500) throw e;
  const fields: Record<string, string> = {};
  for (const d of e.details ?? []) fields[scheduleField(d.path)] ??= d.message;
  const m = /^([a-z_]+(?:\[\d+\])?(?:\.[\w[\]]+)*): (.*)$/s.exec(e.message);
  if (m && (e.details ?? []).length === 0) fields[scheduleField(m[1]!)] ??= m[2]!;
  return { message: e.message, fields };
}
