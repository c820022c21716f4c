import type { Hono } from 'hono';
import { AppError } from '../../lib/errors.ts';
import { IncidentPatchBody, type Incident, type IncidentPatchInput } from '../../domain/incident.ts';
import { LANGUAGES } from '../../domain/localized.ts';
import type { HttpDeps } from '../context.ts';
import { DeleteConfirmPage, type DeleteConfirmation } from '../../../views/console/confirm-delete.tsx';
import { CONFIRM_FIELD, CONFIRM_VALUE } from '../../../views/console/delete-button.tsx';
import { IncidentEditPage, incidentField, incidentValues } from '../../../views/console/incidents.tsx';
import type { FormValues } from '../../../views/console/model.ts';
import { page, shellOf, type ConsoleContext, type ConsoleEnv } from './context.ts';
import { errorStatus, formErrors, formOf, parseWith, text } from './forms.ts';
import { plural } from '../../../views/format.ts';

const many = (f: FormValues, name: string): string[] => {
  const v = f[name];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
};

/** The non-empty texts of `field(lang)` per language (a localized text). */
const localized = (f: FormValues, field: (lang: string) => string) => Object.fromEntries(LANGUAGES.map((l) => [l, text(f, field(l)).trim()]).filter(([, t]) => t !== ''));

/**
 * The edit form → the API's PUT body (IncidentPatchBody): titles per language, kind, the timeline
 * (every update kept with its date unless "Remove" is ticked), status pages, and the affected
 * components ticked plus the monitors and healthchecks the incident had (the form lists components only).
 * @throws AppError 400 naming the field
 */
export function incidentBodyOf(f: FormValues, cur: Incident, componentUuids: Set<string>): IncidentPatchInput {
  const updates = cur.updates.flatMap((_, n) =>
    text(f, incidentField.updateRemove(n)) === '1' ? [] : [{ date: text(f, incidentField.updateDate(n)), type: text(f, incidentField.updateType(n)), text: localized(f, (l) => incidentField.updateText(n, l)) }],
  );
  return parseWith(IncidentPatchBody, {
    title: localized(f, incidentField.title),
    type: text(f, 'type'),
    statuspages: many(f, 'statuspages'),
    affectedComponents: [...cur.affectedComponents.filter((u) => !componentUuids.has(u)), ...many(f, 'components')],
    updates,
  });
}

/**
 * Incidents' edit page (GET/POST `/incidents/:uuid`) and delete with confirmation (GET/POST
 * `/incidents/:uuid/delete`, as routes-delete.ts: the POST deletes only with `confirm=delete`, which
 * the confirmation page and the JavaScript dialog send; otherwise it shows the confirmation page).
 * Viewers are refused by the router's role rule.
 */
export function incidentRoutes(app: Hono<ConsoleEnv>, deps: HttpDeps): void {
  const { core } = deps;
  const found = async (uuid: string): Promise<Incident | null> => {
    try {
      return await core.incidents.get(uuid);
    } catch (e) {
      if (e instanceof AppError && e.status === 404) return null;
      throw e;
    }
  };
  const edit = async (c: ConsoleContext, i: Incident, values: FormValues, e?: unknown) => {
    const [pages, components] = await Promise.all([core.statuspages.list(0), core.incidents.components.list()]);
    const statuspages = pages.statuspages.map((p) => ({ uuid: p.uuid, name: p.name }));
    return page(c, IncidentEditPage({ s: shellOf(c, '/incidents'), incident: i, statuspages, components, values, errors: e === undefined ? undefined : formErrors(e) }), e === undefined ? 200 : errorStatus(e));
  };
  app.get('/incidents/:uuid', async (c) => {
    const i = await found(c.req.param('uuid'));
    return i ? edit(c, i, incidentValues(i)) : c.notFound();
  });
  app.post('/incidents/:uuid', async (c) => {
    const i = await found(c.req.param('uuid'));
    if (!i) return c.notFound();
    const f = await formOf(c);
    try {
      const components = new Set((await core.incidents.components.list()).map((x) => x.uuid));
      await core.incidents.update(i.uuid, incidentBodyOf(f, i, components));
      return c.redirect('/incidents', 303);
    } catch (e) {
      return edit(c, i, f, e);
    }
  });

  const confirmation = (i: Incident): DeleteConfirmation => ({
    kind: 'incident',
    name: i.title.en ?? Object.values(i.title)[0] ?? i.uuid,
    base: `/incidents/${i.uuid}`,
    losses: [`its ${plural(i.updates.length, 'update')}`, 'its place on the status pages that show it (their history too)'],
    pauseInstead: false,
    section: '/incidents',
  });
  app.get('/incidents/:uuid/delete', async (c) => {
    const i = await found(c.req.param('uuid'));
    return i ? page(c, DeleteConfirmPage({ s: shellOf(c, '/incidents'), d: confirmation(i) })) : c.notFound();
  });
  app.post('/incidents/:uuid/delete', async (c) => {
    const i = await found(c.req.param('uuid'));
    if (!i) return c.notFound();
    if (text(await formOf(c), CONFIRM_FIELD) !== CONFIRM_VALUE) return page(c, DeleteConfirmPage({ s: shellOf(c, '/incidents'), d: confirmation(i) }));
    await core.incidents.delete(i.uuid);
    return c.redirect('/incidents', 303);
  });
}
