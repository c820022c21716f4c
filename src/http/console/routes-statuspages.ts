import type { Hono } from 'hono';
import { StatuspageBody, type Statuspage } from '../../domain/statuspage.ts';
import type { HttpDeps } from '../context.ts';
import { SECTION_SLOTS, StatuspagesPage } from '../../../views/console/statuspages.tsx';
import type { FormValues } from '../../../views/console/model.ts';
import { page, shellOf, type ConsoleContext, type ConsoleEnv } from './context.ts';
import { errorStatus, formErrors, formOf, parseWith, text } from './forms.ts';

/** The status page form as the API's JSON body: each named section with the services ticked in it. */
export function statuspageJson(f: FormValues): Record<string, unknown> {
  const sections = [];
  for (let i = 0; i < SECTION_SLOTS; i++) {
    const name = text(f, `section_${i}_name`).trim();
    const picked = f[`section_${i}_services`];
    const uuids = picked === undefined ? [] : Array.isArray(picked) ? picked : [picked];
    if (name) sections.push({ name, services: uuids.map((monitor_uuid) => ({ monitor_uuid })) });
  }
  return { name: text(f, 'name'), ...(text(f, 'subdomain').trim() ? { subdomain: text(f, 'subdomain').trim() } : {}), sections };
}

/** Status pages: list with view links, create with sections (the same schema and use case as /v2/statuspages). */
export function statuspageRoutes(app: Hono<ConsoleEnv>, deps: HttpDeps): void {
  const { core } = deps;
  const urlOf = (p: Statuspage) => (p.hostname ? `https://${p.hostname}` : `${core.config.public_url.replace(/\/$/, '')}/status/${p.subdomain}`);
  const show = (c: ConsoleContext, values: FormValues = {}, e?: unknown) => {
    const services = [
      ...core.monitors.list().map((m) => ({ uuid: m.uuid, name: m.name, kind: m.protocol })),
      ...core.healthchecks.list().map((h) => ({ uuid: h.uuid, name: h.name, kind: 'healthcheck' })),
    ];
    const pages = core.statuspages.list(0).statuspages;
    return page(c, StatuspagesPage({ s: shellOf(c, '/statuspages'), pages, urlOf, services, values, errors: e === undefined ? undefined : formErrors(e) }), e === undefined ? 200 : errorStatus(e));
  };
  app.get('/statuspages', (c) => show(c));
  app.post('/statuspages', async (c) => {
    const f = await formOf(c);
    try {
      await core.statuspages.create(parseWith(StatuspageBody, statuspageJson(f)));
      return c.redirect('/statuspages', 303);
    } catch (e) {
      return show(c, f, e);
    }
  });
}
