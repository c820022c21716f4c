import type { TestPharos } from './pharos.ts';

/** A signed-in (or not) visitor of the console over plain HTTP: a cookie jar and the CSRF token of the last page. */
export interface ConsoleClient {
  cookie: string | null;
  csrf: string | null;
  /** GET a console path (no redirects followed); remembers the CSRF token of the page. */
  get(path: string): Promise<Response & { html: string }>;
  /** POST a form (urlencoded) with the client's CSRF token unless `_csrf` is given; Origin is Pharos's own unless given. */
  post(path: string, form: Record<string, string | string[]>, opts?: { origin?: string | null; csrf?: string | null }): Promise<Response & { html: string }>;
}

/** A fresh cookie-less client of `p`. */
export function consoleClient(p: TestPharos): ConsoleClient {
  const cl: ConsoleClient = {
    cookie: null,
    csrf: null,
    async get(path) {
      const res = await fetch(p.url + path, { redirect: 'manual', headers: cl.cookie ? { cookie: cl.cookie } : {} });
      return keep(res);
    },
    async post(path, form, opts = {}) {
      const body = new URLSearchParams();
      const csrf = opts.csrf === undefined ? cl.csrf : opts.csrf;
      if (csrf !== null) body.append('_csrf', csrf);
      for (const [k, v] of Object.entries(form)) for (const x of Array.isArray(v) ? v : [v]) body.append(k, x);
      const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
      if (cl.cookie) headers.cookie = cl.cookie;
      const origin = opts.origin === undefined ? p.url : opts.origin;
      if (origin !== null) headers.origin = origin;
      const res = await fetch(p.url + path, { method: 'POST', body, redirect: 'manual', headers });
      return keep(res);
    },
  };
  async function keep(res: Response): Promise<Response & { html: string }> {
    const set = res.headers.getSetCookie().find((h) => h.startsWith('pharos_session='));
    if (set) {
      const v = set.split(';')[0]!;
      cl.cookie = v === 'pharos_session=' ? null : v;
    }
    const html = await res.text();
    const m = /name="_csrf" value="([^"]+)"/.exec(html);
    if (m) cl.csrf = m[1]!;
    return Object.assign(res, { html });
  }
  return cl;
}

/** Creates the first admin through the setup link and returns a signed-in client. */
export async function setupAdmin(p: TestPharos, email = 'admin@example.com', password = 'correct horse battery'): Promise<ConsoleClient> {
  const cl = consoleClient(p);
  const res = await cl.post(`/setup/${p.setupToken}`, { email, name: 'Ada Admin', password }, { csrf: null });
  if (res.status !== 303) throw new Error(`setup failed: ${res.status} ${res.html.slice(0, 300)}`);
  await cl.get('/');
  return cl;
}

/** Signs a person in; returns the client (throws unless the answer is the redirect of a successful sign-in). */
export async function signIn(p: TestPharos, email: string, password: string): Promise<ConsoleClient> {
  const cl = consoleClient(p);
  const res = await cl.post('/login', { email, password }, { csrf: null });
  if (res.status !== 303) throw new Error(`sign-in failed: ${res.status}`);
  await cl.get('/');
  return cl;
}
