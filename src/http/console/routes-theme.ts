import type { Hono } from 'hono';
import { setCookie } from 'hono/cookie';
import type { ConsoleEnv } from './context.ts';
import { THEME_COOKIE, themeOf } from '../../../views/console/theme.tsx';

/**
 * POST /theme (`theme` = auto | light | dark; anything else is auto): remembers the console theme in
 * a cookie for a year and goes back to the page it came from (the Referer when it is a console path
 * of this origin, else the overview). Any signed-in role may use it (router.ts SELF_SERVICE).
 */
export function themeRoutes(app: Hono<ConsoleEnv>): void {
  app.post('/theme', async (c) => {
    const body = await c.req.parseBody();
    const theme = themeOf(typeof body.theme === 'string' ? body.theme : undefined);
    setCookie(c, THEME_COOKIE, theme, { path: '/', maxAge: 365 * 86_400, sameSite: 'Lax', httpOnly: true, secure: new URL(c.req.url).protocol === 'https:' });
    let back = '/';
    const ref = c.req.header('referer');
    if (ref) {
      const u = new URL(ref, c.req.url);
      if (u.origin === new URL(c.req.url).origin && u.pathname.startsWith('/') && !u.pathname.startsWith('//')) back = u.pathname + u.search;
    }
    return c.redirect(back, 303);
  });
}
