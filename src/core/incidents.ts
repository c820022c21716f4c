import type { Clock } from '../lib/clock.ts';
import { notFound } from '../lib/errors.ts';
import { ID_PREFIX, newId } from '../domain/ids.ts';
import {
  checkIncidentRefs,
  toIncidentUpdate,
  type Component,
  type ComponentBodyInput,
  type Incident,
  type IncidentBodyInput,
  type IncidentPatchInput,
  type IncidentUpdate,
  type IncidentUpdateInput,
} from '../domain/incident.ts';
import { incidentChange } from '../domain/page-notice.ts';
import { procedure } from '../store/async.ts';
import type { Store } from '../store/index.ts';
import type { EventBus } from './events.ts';
import { queueIncidentNotices } from './notice-queue.ts';
import { isServiceUuid } from './references.ts';

/** @throws AppError 404 `incidents.not_found` */
function mustGet(store: Store, uuid: string): Incident {
  const i = store.incidents.get(uuid);
  if (!i) throw notFound('incidents', 'Incident');
  return i;
}

/** @throws AppError 404 `components.not_found` */
function mustGetComponent(store: Store, uuid: string): Component {
  const c = store.incidents.components.get(uuid);
  if (!c) throw notFound('components', 'Component');
  return c;
}

/** Checks an incident's references against the store. @throws AppError 400 naming the field */
function checkRefs(tx: Store, body: Pick<IncidentBodyInput, 'affectedComponents' | 'statuspages'>): void {
  checkIncidentRefs(
    body,
    (uuid) => isServiceUuid(tx, uuid),
    (uuid) => tx.statuspages.get(uuid) !== undefined,
  );
}

const dateOf = (d: string | null | undefined, now: number): number | null => (d ? Date.parse(d) : d === '' ? now : null);
const fields = (b: IncidentBodyInput, startedAt: number | null) => ({
  title: b.title,
  type: b.type,
  affectedComponents: [...new Set(b.affectedComponents ?? [])],
  statuspages: [...new Set(b.statuspages ?? [])],
  startedAt,
});
const newUpdate = (u: IncidentUpdateInput, now: number) => toIncidentUpdate(u, now, newId(ID_PREFIX.incidentUpdate));
/** `updates` given, or a first `investigating` update from `text` (the hosted clients' initial message). */
const timeline = (b: Pick<IncidentBodyInput, 'updates' | 'text' | 'date'>, now: number): IncidentUpdate[] | undefined =>
  b.updates ? b.updates.map((u) => newUpdate(u, now)) : b.text ? [newUpdate({ text: b.text, type: 'investigating', date: b.date }, now)] : undefined;

/** What every incident write's procedure gets besides its own arguments. */
interface Common {
  now: number;
  publicUrl: string;
}
/** Queues the subscriber notices of a written incident (same transaction). @returns the incident and messages queued */
const notifying = (tx: Store, a: Common, isNew: boolean, written: Incident) => ({ incident: written, queued: queueIncidentNotices(tx, written, incidentChange(written, isNew), a.publicUrl, a.now) });

const createIncident = procedure('incidents.create', (tx: Store, a: Common & { uuid: string; body: IncidentBodyInput }) => {
  checkRefs(tx, a.body);
  return notifying(tx, a, true, tx.incidents.insert(a.uuid, fields(a.body, dateOf(a.body.date, a.now)), timeline(a.body, a.now) ?? [], a.now));
});

const updateIncident = procedure('incidents.update', (tx: Store, a: Common & { uuid: string; body: IncidentPatchInput }) => {
  const { body, now } = a;
  const cur = mustGet(tx, a.uuid);
  const merged: IncidentBodyInput = {
    title: body.title ?? cur.title,
    type: body.type ?? cur.type,
    affectedComponents: body.affectedComponents ?? cur.affectedComponents,
    statuspages: body.statuspages ?? cur.statuspages,
    updates: body.updates,
  };
  checkRefs(tx, merged);
  const startedAt = body.date === undefined ? cur.startedAt : dateOf(body.date, now);
  return notifying(tx, a, false, tx.incidents.update(a.uuid, fields(merged, startedAt), timeline(body.updates ? body : { text: undefined }, now), now));
});

const addIncidentUpdate = procedure('incidents.addUpdate', (tx: Store, a: Common & { uuid: string; update: IncidentUpdateInput }) => {
  mustGet(tx, a.uuid);
  return notifying(tx, a, false, tx.incidents.addUpdate(a.uuid, newUpdate(a.update, a.now), a.now));
});

const deleteIncident = procedure('incidents.delete', (tx: Store, a: { uuid: string }): void => {
  mustGet(tx, a.uuid);
  tx.incidents.delete(a.uuid);
});

const createComponent = procedure('incidents.createComponent', (tx: Store, a: { uuid: string; body: ComponentBodyInput; now: number }): Component =>
  tx.incidents.components.insert(a.uuid, { name: a.body.name, description: a.body.description ?? null, status: a.body.status ?? 'operational' }, a.now),
);

const updateComponent = procedure('incidents.updateComponent', (tx: Store, a: { uuid: string; body: Partial<ComponentBodyInput>; now: number }): Component => {
  const c = mustGetComponent(tx, a.uuid);
  const b = a.body;
  return tx.incidents.components.update(a.uuid, { name: b.name ?? c.name, description: b.description === undefined ? c.description : b.description, status: b.status ?? c.status }, a.now);
});

// `store.async` carries a module's own functions only, not the nested `incidents.components`: its reads are procedures.
const listComponents = procedure('incidents.listComponents', (tx: Store, _a: null): Component[] => tx.incidents.components.list());
const getComponent = procedure('incidents.getComponent', (tx: Store, a: { uuid: string }): Component => mustGetComponent(tx, a.uuid));

const deleteComponent = procedure('incidents.deleteComponent', (tx: Store, a: { uuid: string }): void => {
  mustGetComponent(tx, a.uuid);
  tx.incidents.components.delete(a.uuid);
});

/**
 * Status-page incidents (API.md §4.3, CONTRACT.md "Incidents") and components (CONTRACT.md
 * "Components"). Every write is one transaction (a procedure), which also queues the notices for the
 * subscribers of the incident's status pages (created, updated, resolved); events go out after it.
 */
export function incidentsService(deps: { store: Store; clock: Clock; bus: EventBus; publicUrl: string }) {
  const { store, clock, bus } = deps;
  /** After an incident write's commit: its pages render again, the dispatcher wakes for its notices. */
  const written = ({ incident, queued }: { incident: Incident; queued: number }): Incident => {
    bus.emit('statuspage.content', { kind: 'incident', uuid: incident.uuid });
    if (queued > 0) bus.emit('notices.queued', { count: queued });
    return incident;
  };
  /** After a component write's commit: pages showing it must render again. */
  const component = (c: Component): Component => {
    bus.emit('statuspage.content', { kind: 'component', uuid: c.uuid });
    return c;
  };
  const common = (): Common => ({ now: clock.now(), publicUrl: deps.publicUrl });

  return {
    /** Newest first. */
    list: (): Promise<Incident[]> => store.async.incidents.list(),
    /** @throws AppError 404 `incidents.not_found` */
    async get(uuid: string): Promise<Incident> {
      const i = await store.async.incidents.get(uuid);
      if (!i) throw notFound('incidents', 'Incident');
      return i;
    },
    /** @throws AppError 400 naming the field */
    async create(body: IncidentBodyInput): Promise<Incident> {
      return written(await store.async.tx(createIncident, { ...common(), uuid: newId(ID_PREFIX.incident), body }));
    },
    /**
     * Partial update: the fields given are merged into the stored incident (fields left out keep
     * their values) and the result is checked as a whole; `updates`, when given, replace the
     * timeline. Nothing is stored when it breaks a rule. @throws AppError 404 / 400
     */
    async update(uuid: string, body: IncidentPatchInput): Promise<Incident> {
      return written(await store.async.tx(updateIncident, { ...common(), uuid, body }));
    },
    /** Appends an update (date defaults to now). @throws AppError 404 */
    async addUpdate(uuid: string, u: IncidentUpdateInput): Promise<Incident> {
      return written(await store.async.tx(addIncidentUpdate, { ...common(), uuid, update: u }));
    },
    /** @throws AppError 404 */
    async delete(uuid: string): Promise<void> {
      await store.async.tx(deleteIncident, { uuid });
      bus.emit('statuspage.content', { kind: 'incident', uuid });
    },
    components: {
      list: (): Promise<Component[]> => store.async.tx(listComponents, null),
      /** @throws AppError 404 `components.not_found` */
      get: (uuid: string): Promise<Component> => store.async.tx(getComponent, { uuid }),
      async create(b: ComponentBodyInput): Promise<Component> {
        return component(await store.async.tx(createComponent, { uuid: newId(ID_PREFIX.component), body: b, now: clock.now() }));
      },
      /** Fields left out keep their values. @throws AppError 404 */
      async update(uuid: string, b: Partial<ComponentBodyInput>): Promise<Component> {
        return component(await store.async.tx(updateComponent, { uuid, body: b, now: clock.now() }));
      },
      /** @throws AppError 404 */
      async delete(uuid: string): Promise<void> {
        await store.async.tx(deleteComponent, { uuid });
        bus.emit('statuspage.content', { kind: 'component', uuid });
      },
    },
  };
}

/** The incidents service's interface. */
export type IncidentsService = ReturnType<typeof incidentsService>;
