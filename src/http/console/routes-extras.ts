import type { Hono } from 'hono';
import { AppError } from '../../lib/errors.ts';
import type { MaintenanceWindow } from '../../domain/maintenance.ts';
import { ComponentBody, IncidentBody, IncidentUpdateBody } from '../../domain/incident.ts';
import type { HttpDeps } from '../context.ts';
import { ComponentsPage, IncidentsPage, MaintenancePage } from '../../../views/console/extras.tsx';
import type { FormValues } from '../../../views/console/model.ts';
import { page, shellOf, type ConsoleContext, type ConsoleEnv } from './context.ts';
import { pickerModel, pickQueryValues } from './picker.ts';
import { errorStatus, formErrors, formOf, parseWith, text } from './forms.ts';
import { maintenanceBodyOf, maintenanceRoutes } from './routes-maintenance.ts';
import { incidentRoutes } from './routes-incidents.ts';
import { consoleActor } from '../audit-actor.ts';

const many = (f: FormValues, name: string): string[] => {
  const v = f[name];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
};

/** Maintenance windows, incidents and components: lists and create forms over the API's schemas and use cases. */
export function extraRoutes(app: Hono<ConsoleEnv>, deps: HttpDeps): void {
  const { core, clock } = deps;
  const errs = (e: unknown) => (e === undefined ? undefined : formErrors(e));
  const status = (e: unknown) => (e === undefined ? 200 : errorStatus(e));

  const maintenance = async (c: ConsoleContext, values: FormValues = {}, e?: unknown, editing?: MaintenanceWindow) => {
    const [windows, monitors] = await Promise.all([core.maintenance.list(), core.monitors.list()]);
    // A searchable picker instead of a checkbox per monitor (issue 33 point 5).
    const monitorPicker = pickerModel(values, 'monitors', monitors.map((m) => ({ uuid: m.uuid, name: m.name, kind: m.protocol, tags: m.tags })));
    return page(c, MaintenancePage({ s: shellOf(c, '/maintenance'), windows, monitors: monitors.map((m) => ({ uuid: m.uuid, name: m.name })), now: clock.now(), values, errors: errs(e), monitorPicker, editing }), status(e));
  };
  app.get('/maintenance', (c) => maintenance(c, pickQueryValues(c)));
  app.post('/maintenance', async (c) => {
    const f = await formOf(c);
    try {
      await core.maintenance.create(maintenanceBodyOf(f), consoleActor(c.var.session!));
      return c.redirect('/maintenance', 303);
    } catch (e) {
      return maintenance(c, f, e);
    }
  });
  maintenanceRoutes(app, deps, maintenance);

  const incidents = async (c: ConsoleContext, values: FormValues = {}, e?: unknown) => {
    const [list, pages] = await Promise.all([core.incidents.list(), core.statuspages.list(0)]);
    return page(c, IncidentsPage({ s: shellOf(c, '/incidents'), incidents: list, statuspages: pages.statuspages.map((p) => ({ uuid: p.uuid, name: p.name })), values, errors: errs(e) }), status(e));
  };
  app.get('/incidents', (c) => incidents(c));
  app.post('/incidents', async (c) => {
    const f = await formOf(c);
    const update = text(f, 'update_text').trim();
    try {
      await core.incidents.create(
        parseWith(IncidentBody, {
          title: { en: text(f, 'title') },
          type: text(f, 'type'),
          statuspages: many(f, 'statuspages'),
          updates: update ? [{ text: { en: update }, type: text(f, 'update_type') }] : [],
        }),
      );
      return c.redirect('/incidents', 303);
    } catch (e) {
      return incidents(c, f, e);
    }
  });

  incidentRoutes(app, deps);
  app.post('/incidents/:uuid/updates', async (c) => {
    const f = await formOf(c);
    try {
      await core.incidents.addUpdate(c.req.param('uuid'), parseWith(IncidentUpdateBody, { text: { [text(f, 'lang')]: text(f, 'text') }, type: text(f, 'type') }));
      return c.redirect('/incidents', 303);
    } catch (e) {
      if (e instanceof AppError && e.status === 404) return c.notFound();
      return incidents(c, {}, e);
    }
  });

  const components = async (c: ConsoleContext, values: FormValues = {}, e?: unknown) =>
    page(c, ComponentsPage({ s: shellOf(c, '/components'), components: await core.incidents.components.list(), values, errors: errs(e) }), status(e));
  app.get('/components', (c) => components(c));
  app.post('/components', async (c) => {
    const f = await formOf(c);
    try {
      await core.incidents.components.create(parseWith(ComponentBody, { name: text(f, 'name'), description: text(f, 'description') || null }));
      return c.redirect('/components', 303);
    } catch (e) {
      return components(c, f, e);
    }
  });
  app.post('/components/:uuid', async (c) => {
    const f = await formOf(c);
    try {
      const current = await core.incidents.components.get(c.req.param('uuid'));
      await core.incidents.components.update(current.uuid, parseWith(ComponentBody, { name: current.name, status: text(f, 'status') }));
      return c.redirect('/components', 303);
    } catch (e) {
      if (e instanceof AppError && e.status === 404) return c.notFound();
      return components(c, {}, e);
    }
  });
}
