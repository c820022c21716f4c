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
  type IncidentUpdateInput,
} from '../domain/incident.ts';
import { incidentChange } from '../domain/page-notice.ts';
import type { Store } from '../store/index.ts';
import type { EventBus } from './events.ts';
import { isServiceUuid } from './references.ts';
import type { SubscriptionsService } from './subscriptions.ts';

/**
 * Status-page incidents (API.md §4.3, CONTRACT.md "Incidents") and components (CONTRACT.md
 * "Components"). Every write is one transaction, which also queues the notices for the
 * subscribers of the incident's status pages (created, updated, resolved).
 */
export function incidentsService(deps: { store: Store; clock: Clock; bus: EventBus; subscriptions: SubscriptionsService }) {
  const { store, clock, bus, subscriptions } = deps;
  /** Writes `fn` and queues its subscriber notices in one transaction, then wakes the dispatcher. */
  const notifying = (isNew: boolean, fn: () => Incident): Incident => {
    let queued = 0;
    const i = store.tx(() => {
      const written = fn();
      queued = subscriptions.queueIncident(written, incidentChange(written, isNew));
      return written;
    });
    bus.emit('statuspage.content', { kind: 'incident', uuid: i.uuid });
    if (queued > 0) bus.emit('notices.queued', { count: queued });
    return i;
  };
  const mustGet = (uuid: string): Incident => {
    const i = store.incidents.get(uuid);
    if (!i) throw notFound('incidents', 'Incident');
    return i;
  };
  const mustGetComponent = (uuid: string): Component => {
    const c = store.incidents.components.get(uuid);
    if (!c) throw notFound('components', 'Component');
    return c;
  };
  /** After a component write's commit: pages showing it must render again. */
  const component = (c: Component): Component => {
    bus.emit('statuspage.content', { kind: 'component', uuid: c.uuid });
    return c;
  };
  const knownAffected = (uuid: string) => isServiceUuid(store, uuid);
  const knownStatuspage = (uuid: string) => store.statuspages.get(uuid) !== undefined;
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
  const timeline = (b: Pick<IncidentBodyInput, 'updates' | 'text' | 'date'>, now: number) =>
    b.updates ? b.updates.map((u) => newUpdate(u, now)) : b.text ? [newUpdate({ text: b.text, type: 'investigating', date: b.date }, now)] : undefined;

  return {
    /** Newest first. */
    list: (): Incident[] => store.incidents.list(),
    /** @throws AppError 404 `incidents.not_found` */
    get: mustGet,
    /** @throws AppError 400 naming the field */
    create(body: IncidentBodyInput): Incident {
      checkIncidentRefs(body, knownAffected, knownStatuspage);
      const now = clock.now();
      return notifying(true, () => store.incidents.insert(newId(ID_PREFIX.incident), fields(body, dateOf(body.date, now)), timeline(body, now) ?? [], now));
    },
    /**
     * Partial update: the fields given are merged into the stored incident (fields left out keep
     * their values) and the result is checked as a whole; `updates`, when given, replace the
     * timeline. Nothing is stored when it breaks a rule. @throws AppError 404 / 400
     */
    update(uuid: string, body: IncidentPatchInput): Incident {
      const now = clock.now();
      return notifying(false, () => {
        const cur = mustGet(uuid);
        const merged: IncidentBodyInput = {
          title: body.title ?? cur.title,
          type: body.type ?? cur.type,
          affectedComponents: body.affectedComponents ?? cur.affectedComponents,
          statuspages: body.statuspages ?? cur.statuspages,
          updates: body.updates,
        };
        checkIncidentRefs(merged, knownAffected, knownStatuspage);
        const startedAt = body.date === undefined ? cur.startedAt : dateOf(body.date, now);
        return store.incidents.update(uuid, fields(merged, startedAt), timeline(body.updates ? body : { text: undefined }, now), now);
      });
    },
    /** Appends an update (date defaults to now). @throws AppError 404 */
    addUpdate(uuid: string, u: IncidentUpdateInput): Incident {
      const now = clock.now();
      return notifying(false, () => {
        mustGet(uuid);
        return store.incidents.addUpdate(uuid, newUpdate(u, now), now);
      });
    },
    /** @throws AppError 404 */
    delete(uuid: string): void {
      store.tx((tx) => {
        mustGet(uuid);
        tx.incidents.delete(uuid);
      });
      bus.emit('statuspage.content', { kind: 'incident', uuid });
    },
    components: {
      list: (): Component[] => store.incidents.components.list(),
      /** @throws AppError 404 `components.not_found` */
      get: mustGetComponent,
      create(b: ComponentBodyInput): Component {
        return component(store.tx((tx) => tx.incidents.components.insert(newId(ID_PREFIX.component), { name: b.name, description: b.description ?? null, status: b.status ?? 'operational' }, clock.now())));
      },
      /** Fields left out keep their values. @throws AppError 404 */
      update(uuid: string, b: Partial<ComponentBodyInput>): Component {
        return component(
          store.tx((tx) => {
            const c = mustGetComponent(uuid);
            return tx.incidents.components.update(uuid, { name: b.name ?? c.name, description: b.description === undefined ? c.description : b.description, status: b.status ?? c.status }, clock.now());
          }),
        );
      },
      /** @throws AppError 404 */
      delete(uuid: string): void {
        store.tx((tx) => {
          mustGetComponent(uuid);
          tx.incidents.components.delete(uuid);
        });
        bus.emit('statuspage.content', { kind: 'component', uuid });
      },
    },
  };
}

/** The incidents service's interface. */
export type IncidentsService = ReturnType<typeof incidentsService>;
