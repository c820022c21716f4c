import type { Hono } from 'hono';
import { CONTACT_KINDS, MAX_RULE_DELAY_MINUTES, type ContactKind, type NotificationRule } from '../../domain/people.ts';
import type { AuditActor } from '../../domain/audit.ts';
import { AppError } from '../../lib/errors.ts';
import { ProfilePage, type ProfileView } from '../../../views/console/profile.tsx';
import type { HttpDeps } from '../context.ts';
import { page, shellOf, type ConsoleContext, type ConsoleEnv } from './context.ts';
import { errorStatus, formErrors, formOf, text } from './forms.ts';
import { consoleActor } from '../audit-actor.ts';

/**
 * Profile (issue 34 point 1): `/profile` is the signed-in person's own (any role, viewers included:
 * it is about themselves); `/profile/<user uuid>` someone else's, for admins only (403 otherwise).
 * The same core use cases as `/v1/me` and `/v1/team-members/{uuid}`. Every post answers with the page
 * (its notice or the form's errors), so it works without JavaScript.
 */
export function profileRoutes(app: Hono<ConsoleEnv>, deps: HttpDeps): void {
  const { core } = deps;

  /** The person the request is about, and the base path of its forms. */
  async function who(c: ConsoleContext): Promise<{ user: string; base: string; own: boolean }> {
    const self = c.var.session!.account.uuid;
    const user = c.req.param('user') ?? self;
    if (!(await core.people.mayManage(self, user))) throw new AppError(403, 'team_members.forbidden', "only admins change another person's profile");
    await core.people.member(user);
    return { user, own: user === self, base: user === self && !c.req.param('user') ? '/profile' : `/profile/${user}` };
  }

  async function show(c: ConsoleContext, extra: Partial<ProfileView> = {}, status: 200 | 400 | 403 | 404 | 409 | 429 = 200) {
    const w = await who(c);
    const v: ProfileView = { member: await core.people.member(w.user), own: w.own, base: w.base, methods: await core.people.methods(w.user), rules: await core.people.rules(w.user), ...extra };
    return page(c, ProfilePage({ s: shellOf(c, '/profile'), v }), status);
  }

  /** Runs a form's use case; answers the page with `notice` or with the form's errors. */
  async function post(c: ConsoleContext, form: string, run: (user: string, actor: AuditActor) => Promise<string>) {
    const { user } = await who(c);
    const actor = consoleActor(c.var.session!);
    let notice: string;
    try {
      notice = await run(user, actor);
    } catch (e) {
      // A provider that refused the code (502) is a notice, not a broken form.
      if (e instanceof AppError && e.status === 502) return show(c, { notice: e.message });
      return show(c, { errors: { form, errors: formErrors(e) } }, errorStatus(e));
    }
    return show(c, { notice });
  }

  for (const base of ['/profile', '/profile/:user']) {
    app.get(base, (c) => show(c));
    app.post(`${base}/details`, async (c) => {
      const f = await formOf(c);
      return post(c, 'details', async (user, actor) => {
        const phone = text(f, 'phone').trim();
        await core.people.setProfile(user, { name: text(f, 'name').trim() || undefined, phone: phone === '' ? null : phone }, actor);
        return 'Details saved.';
      });
    });
    app.post(`${base}/methods`, async (c) => {
      const f = await formOf(c);
      return post(c, 'add', async (user, actor) => {
        const kind = text(f, 'kind') as ContactKind;
        if (!CONTACT_KINDS.includes(kind)) throw new AppError(400, 'validation.invalid', `kind: must be one of ${CONTACT_KINDS.join(', ')}`);
        const { method, codeError } = await core.people.addMethod(user, { kind, address: text(f, 'address'), label: text(f, 'label').trim() || undefined }, actor);
        if (method.kind === 'console') return `Added ${method.hint}: pages now show in every console tab you have open (allow notifications to get them outside the tab).`;
        return codeError ? `Added ${method.hint}, but the code could not be sent: ${codeError}` : `We sent a 6-digit code to ${method.hint}. Enter it below within 10 minutes.`;
      });
    });
    app.post(`${base}/methods/:cm/verify`, async (c) => {
      const f = await formOf(c);
      const cm = c.req.param('cm');
      return post(c, `verify:${cm}`, async (user, actor) => {
        const m = await core.people.verify(user, cm, text(f, 'code').trim(), actor);
        return `${m.hint} is verified: pages can reach you there.`;
      });
    });
    app.post(`${base}/methods/:cm/send-code`, (c) =>
      post(c, `verify:${c.req.param('cm')}`, async (user) => {
        await core.people.sendCode(user, c.req.param('cm'));
        return 'A new code is on its way.';
      }),
    );
    app.post(`${base}/methods/:cm/delete`, (c) =>
      post(c, 'add', async (user, actor) => {
        await core.people.removeMethod(user, c.req.param('cm'), actor);
        return 'Contact method removed.';
      }),
    );
    app.post(`${base}/rules`, async (c) => {
      const f = await formOf(c);
      return post(c, 'rules', async (user, actor) => {
        const rules: NotificationRule[] = [];
        for (let i = 0; f[`method_${i}`] !== undefined; i++) {
          const methodUuid = text(f, `method_${i}`);
          if (!methodUuid) continue;
          const raw = text(f, `delay_${i}`).trim() || '0';
          const delayMinutes = Number(raw);
          if (!/^\d+$/.test(raw) || delayMinutes > MAX_RULE_DELAY_MINUTES) throw new AppError(400, 'validation.invalid', `delay_${i}: must be whole minutes from 0 to ${MAX_RULE_DELAY_MINUTES}`);
          rules.push({ methodUuid, delayMinutes });
        }
        await core.people.setRules(user, rules, actor);
        return rules.length === 0 ? 'No rules: every verified method is paged at once.' : 'Notification rules saved.';
      });
    });
  }
}
