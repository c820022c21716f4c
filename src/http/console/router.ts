import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { getCookie } from 'hono/cookie';
import { AppError } from '../../lib/errors.ts';
import type { HttpDeps } from '../context.ts';
import { consoleAssetsRouter } from './assets.ts';
import { compressConsole } from './compress.ts';
import { page, SESSION_COOKIE, type ConsoleContext, type ConsoleEnv } from './context.ts';
import { LiveHub } from './live.ts';
import { consoleBase, csrfOk, isUnsafe, originOk } from './security.ts';
import { authRoutes, setupNeeded } from './routes-auth.ts';
import { outageRoutes, overviewRoutes } from './routes-overview.ts';
import { monitorRoutes } from './routes-monitors.ts';
import { bulkRoutes } from './routes-bulk.ts';
import { healthcheckRoutes } from './routes-healthchecks.ts';
import { settingsRoutes } from './routes-settings.ts';
import { profileRoutes } from './routes-profile.ts';
import { auditRoutes } from './routes-audit.ts';
import { integrationRoutes } from './routes-integrations.ts';
import { policyRoutes } from './routes-policies.ts';
import { onCallRoutes } from './routes-on-call.ts';
import { statuspageRoutes } from './routes-statuspages.ts';
import { deleteRoutes } from './routes-delete.ts';
import { extraRoutes } from './routes-extras.ts';
import { ssoRoutes } from './routes-sso.ts';
import { themeRoutes } from './routes-theme.ts';
import { pickerRoutes } from './picker.ts';
import { LoginPage, MessagePage } from '../../../views/console/auth.tsx';

/** Routes a signed-out visitor may use. */
const OPEN = /^\/(?:login(?:\/totp|\/sso)?$|setup\/|_console\/)/;
/** Pages that are a form for a change (new, edit, delete, send a test): a viewer is refused them before filling anything in. */
const CHANGE_FORM = /\/(?:new|edit|delete|test)$/;
/** State-changing routes a viewer may still use: about their own session and password only. */
const SELF_SERVICE = /^\/(?:logout$|theme$|profile(?:\/|$)|settings\/sessions(?:\/|$)|settings\/password$|settings\/totp\/)/;

/**
 * The web console (issue 16) at `/` for signed-in people: thin routes (parse → core use cases →
 * render with views/console). Every state-changing request must come from Pharos's own origin and,
 * with a session, carry the session's CSRF token (403 otherwise); a viewer may change nothing but
 * their own sessions and password (403).
 */
export function consoleRouter(deps: HttpDeps) {
  const { core } = deps;
  const app = new Hono<ConsoleEnv>();
  const hub = new LiveHub(core, () => deps.clock.now(), (e) => deps.logger.warn('console live updates: a run failed', { error: (e as Error).message }));
  app.use('*', compressConsole()); // before every route: pages, assets; never /events (text/event-stream)
  app.route('/_console', consoleAssetsRouter());
  app.use('*', consoleBase(core));
  app.use('*', async (c, next) => {
    const path = c.req.path;
    const unsafe = isUnsafe(c.req.method);
    if (unsafe && !originOk(c, core.config.public_url)) return forbidden(c, 'This request came from another site.');
    if (OPEN.test(path)) return next();
    const s = c.var.session;
    if (!s) {
      if (unsafe) return forbidden(c, 'You are signed out. Sign in and try again.');
      if (path === '/events') return c.body(null, 204);
      const q = new URL(c.req.url).search;
      if (path === '/' && !q) return (await setupNeeded(c, core)) ?? page(c, LoginPage({ nonce: c.var.nonce, sso: await core.consoleSso.label() }));
      return c.redirect(`/login?next=${encodeURIComponent(path + q)}`, 303);
    }
    if (unsafe) {
      const given = c.req.header('x-csrf-token') ?? (await csrfField(c));
      if (!csrfOk(s.csrf, given)) return forbidden(c, 'This form has expired or did not come from Pharos (CSRF token missing or wrong). Reload the page and try again.');
      if (s.account.role === 'viewer' && !SELF_SERVICE.test(path)) return forbidden(c, 'Your role (viewer) may look but not change anything.');
    } else if (s.account.role === 'viewer' && CHANGE_FORM.test(path) && !SELF_SERVICE.test(path)) {
      return forbidden(c, 'Your role (viewer) may look but not change anything: this form is for editors and admins.');
    }
    return next();
  });

  app.get('/events', (c) => {
    const id = getCookie(c, SESSION_COOKIE);
    return streamSSE(c, async (stream) => {
      let queue = Promise.resolve();
      await new Promise<void>((resolve) => {
        let ended = false;
        const remove = hub.add((msgs) => {
          // The session may have ended since (sign out everywhere, password change): stop at once.
          // Checked in the queue, so messages keep their order and none is written after the end.
          queue = queue
            .then(async () => {
              if (ended) return;
              if (!(await core.accounts.session(id))) {
                ended = true;
                done();
                await stream.writeSSE({ event: 'signed-out', data: '' });
                return;
              }
              for (const m of msgs) await stream.writeSSE({ event: m.event, data: m.data });
            })
            .catch(() => {});
        });
        // Pages for this visit's person (contact kind \`console\`), in the same queue: they never overtake a row.
        // Written only while the session lasts: true once written (the page reached this tab).
        const user = c.var.session!.account.uuid;
        const removePager = core.consolePager.add(user, (p) => {
          const written = queue.then(async () => {
            if (ended || stream.aborted || stream.closed) return false;
            if (!(await core.accounts.session(id))) {
              ended = true;
              done();
              await stream.writeSSE({ event: 'signed-out', data: '' });
              return false;
            }
            await stream.writeSSE({ event: 'page', data: JSON.stringify(p) });
            return true;
          });
          queue = written.then(
            () => undefined,
            () => undefined,
          );
          return written.catch(() => false);
        });
        const done = () => {
          remove();
          removePager();
          resolve();
        };
        stream.onAbort(done);
        queue = queue.then(() => stream.writeSSE({ event: 'hello', data: 'live', retry: 5000 })).catch(() => {});
      });
      await queue;
    });
  });

  authRoutes(app, deps);
  ssoRoutes(app, deps);
  pickerRoutes(app, deps); // before /monitors/:uuid
  overviewRoutes(app, deps);
  outageRoutes(app, deps);
  bulkRoutes(app, deps); // before monitorRoutes: /monitors/bulk is not a monitor's uuid
  monitorRoutes(app, deps);
  healthcheckRoutes(app, deps);
  statuspageRoutes(app, deps);
  deleteRoutes(app, deps);
  settingsRoutes(app, deps);
  profileRoutes(app, deps);
  integrationRoutes(app, deps);
  policyRoutes(app, deps);
  onCallRoutes(app, deps);
  auditRoutes(app, deps);
  extraRoutes(app, deps);
  themeRoutes(app);
  app.onError((err, c) => {
    if (err instanceof AppError && err.status < 500) {
      const status = ([400, 403, 404, 409, 429] as const).find((x) => x === err.status) ?? 400;
      return page(c, MessagePage({ nonce: c.var.nonce ?? '', title: status === 404 ? 'Not found' : 'Not allowed', message: err.message }), status);
    }
    deps.logger.error('console error', { method: c.req.method, path: c.req.path, error: err.message, stack: err.stack });
    return page(c, MessagePage({ nonce: c.var.nonce ?? '', title: 'Something went wrong', message: 'Pharos hit an internal error; it is in the log.' }), 500 as 400);
  });
  app.notFound((c) => page(c, MessagePage({ nonce: c.var.nonce ?? '', title: 'Not found', message: `Nothing at ${c.req.path}.` }), 404));
  return { app, hub };
}

async function csrfField(c: ConsoleContext): Promise<string | undefined> {
  const type = c.req.header('content-type') ?? '';
  if (!type.startsWith('application/x-www-form-urlencoded') && !type.startsWith('multipart/form-data')) return undefined;
  const v = (await c.req.parseBody({ all: true }))._csrf;
  return typeof v === 'string' ? v : undefined;
}

function forbidden(c: ConsoleContext, message: string): Response {
  return page(c, MessagePage({ nonce: c.var.nonce, title: 'Not allowed', message }), 403);
}
