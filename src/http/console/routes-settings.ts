import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Hono } from 'hono';
import { AppError } from '../../lib/errors.ts';
import { TOKEN_SCOPES, type Role, type TokenScope } from '../../domain/user.ts';
import type { HttpDeps } from '../context.ts';
import { SettingsPage, type SettingsView } from '../../../views/console/settings.tsx';
import { page, shellOf, type ConsoleContext, type ConsoleEnv } from './context.ts';
import { errorStatus, formErrors, formOf, text } from './forms.ts';
import { clearSessionCookie } from './security.ts';
import { consoleActor } from '../audit-actor.ts';

/** The QR code of `uri` as SVG; the qrcode library loads at the first two-factor set-up, not at start (issue 38). */
const qrSvg = async (uri: string, options: { type: 'svg'; margin: number }): Promise<string> => (await import('qrcode')).default.toString(uri, options);

/** Settings: own sessions and password; users and API tokens (admins); probes, channels, about. */
export function settingsRoutes(app: Hono<ConsoleEnv>, deps: HttpDeps): void {
  const { core, clock } = deps;
  const cfg = core.config;
  const view = async (c: ConsoleContext, extra: Partial<SettingsView> = {}): Promise<SettingsView> => {
    const s = c.var.session!;
    const admin = s.account.role === 'admin';
    let dbBytes: number | null = null;
    try {
      dbBytes = statSync(join(cfg.data_dir, 'pharos.db')).size;
    } catch {
      dbBytes = null;
    }
    return {
      totpOn: (await core.accounts.get(s.account.uuid)).totp,
      sessions: await core.accounts.sessions(s.account.uuid),
      currentRef: s.ref,
      users: admin ? await core.accounts.list() : [],
      invitations: { sso: await core.consoleSso.label(), list: admin ? await core.consoleSso.invitations.list() : [] },
      tokens: admin ? await core.users.listTokens() : [],
      probes: core.probes.list(deps.version),
      channels: cfg.channels.map((ch) => ({ name: ch.name, type: ch.type })),
      backups: admin && deps.backups ? deps.backups() : null,
      about: { version: deps.version, database: await core.consoleView.databaseVersion(), node: process.version, dataDir: cfg.data_dir, dbBytes, publicUrl: cfg.public_url },
      now: clock.now(),
      ...extra,
    };
  };
  const show = async (c: ConsoleContext, extra: Partial<SettingsView> = {}, status: 200 | 400 | 403 | 404 | 409 | 429 = 200) => {
    const v = await view(c, extra);
    return page(c, SettingsPage({ s: shellOf(c, '/settings'), v }), status);
  };
  const adminOnly = (c: ConsoleContext, what = 'manage users and API tokens') => {
    if (c.var.session!.account.role !== 'admin') throw new AppError(403, 'auth.admin_only', `only admins ${what}`);
  };

  app.get('/settings', (c) => show(c));

  app.post('/settings/password', async (c) => {
    const f = await formOf(c);
    try {
      await core.accounts.changeOwnPassword(c.var.session!.account.uuid, text(f, 'current_password'), text(f, 'password'), consoleActor(c.var.session!));
    } catch (e) {
      return show(c, { errors: { form: 'password', errors: formErrors(e) } }, errorStatus(e));
    }
    clearSessionCookie(c, cfg.public_url);
    return c.redirect('/login?signed_out=1', 303);
  });

  app.post('/settings/totp/start', async (c) => {
    const { secret, uri } = await core.accounts.totpProposal(c.var.session!.account);
    return show(c, { totp: { secret, uri, qrSvg: await qrSvg(uri, { type: 'svg', margin: 1 }) } });
  });
  app.post('/settings/totp/enable', async (c) => {
    const f = await formOf(c);
    const secret = text(f, 'secret');
    try {
      const codes = await core.accounts.enableTotp(c.var.session!.account.uuid, secret, text(f, 'code'), consoleActor(c.var.session!));
      return show(c, { recoveryCodes: codes });
    } catch (e) {
      const uri = `otpauth://totp/Pharos:${encodeURIComponent(c.var.session!.account.email)}?issuer=Pharos&secret=${encodeURIComponent(secret)}&algorithm=SHA1&digits=6&period=30`;
      return show(c, { totp: { secret, uri, qrSvg: await qrSvg(uri, { type: 'svg', margin: 1 }) }, errors: { form: 'totp', errors: formErrors(e) } }, errorStatus(e));
    }
  });
  app.post('/settings/totp/disable', async (c) => {
    const f = await formOf(c);
    try {
      await core.accounts.disableTotp(c.var.session!.account.uuid, text(f, 'current_password'), consoleActor(c.var.session!));
      return show(c, { notice: 'Two-factor sign-in is off.' });
    } catch (e) {
      return show(c, { errors: { form: 'totp', errors: formErrors(e) } }, errorStatus(e));
    }
  });

  app.post('/settings/sessions/end-all', async (c) => {
    await core.accounts.endAllSessions(c.var.session!.account.uuid, consoleActor(c.var.session!));
    clearSessionCookie(c, cfg.public_url);
    return c.redirect('/login?signed_out=1', 303);
  });

  app.post('/settings/sessions/:ref/end', async (c) => {
    await core.accounts.endSession(c.var.session!.account.uuid, c.req.param('ref'), consoleActor(c.var.session!));
    return c.redirect('/settings#sessions', 303);
  });

  app.post('/settings/users', async (c) => {
    adminOnly(c);
    const f = await formOf(c);
    try {
      const a = await core.accounts.create({ email: text(f, 'email'), name: text(f, 'name'), role: text(f, 'role') as Role, password: text(f, 'password') }, consoleActor(c.var.session!));
      return show(c, { notice: `${a.email} can now sign in as ${a.role}.` });
    } catch (e) {
      return show(c, { errors: { form: 'user', errors: formErrors(e) } }, errorStatus(e));
    }
  });

  app.post('/settings/invitations', async (c) => {
    adminOnly(c);
    const f = await formOf(c);
    try {
      const i = await core.consoleSso.invitations.create(text(f, 'email'), text(f, 'role') as Role, c.var.session!.account.email, consoleActor(c.var.session!));
      return show(c, { notice: `${i.email} is invited: their first single sign-on makes them ${i.role}.` });
    } catch (e) {
      return show(c, { invitations: { sso: await core.consoleSso.label(), list: await core.consoleSso.invitations.list(), errors: formErrors(e) } }, errorStatus(e));
    }
  });

  app.post('/settings/invitations/revoke', async (c) => {
    adminOnly(c);
    const f = await formOf(c);
    await core.consoleSso.invitations.revoke(text(f, 'email'), consoleActor(c.var.session!));
    return c.redirect('/settings#invitations', 303);
  });

  for (const action of ['disable', 'enable'] as const) {
    app.post(`/settings/users/:uuid/${action}`, async (c) => {
      adminOnly(c);
      const uuid = c.req.param('uuid');
      if (uuid === c.var.session!.account.uuid) return show(c, { notice: 'You cannot disable yourself.' }, 409);
      await core.accounts.setDisabled(uuid, action === 'disable', consoleActor(c.var.session!));
      return c.redirect('/settings#users', 303);
    });
  }

  app.post('/settings/tokens', async (c) => {
    adminOnly(c);
    const f = await formOf(c);
    const scope = text(f, 'scope') as TokenScope;
    const name = text(f, 'name').trim().slice(0, 100);
    try {
      if (!TOKEN_SCOPES.includes(scope)) throw new AppError(400, 'validation.invalid', `scope: must be one of ${TOKEN_SCOPES.join(', ')}`);
      if (!name) throw new AppError(400, 'validation.invalid', 'name: must not be empty');
      const a = c.var.session!.account;
      // Probe tokens are bound to regions (issue 30): a comma list, validated by the users service.
      const regions = scope === 'probe' ? text(f, 'regions').split(',').map((r) => r.trim()).filter((r) => r !== '') : [];
      const { token } = await core.users.createToken({ email: a.email, name: a.name, scope, tokenName: name, regions }, consoleActor(c.var.session!));
      return show(c, { newToken: token });
    } catch (e) {
      return show(c, { errors: { form: 'token', errors: formErrors(e) } }, errorStatus(e));
    }
  });

  // A test alert really goes out (pages someone, posts in a shared channel): admins only (issue #30).
  app.post('/settings/channels/:name/test', async (c) => {
    adminOnly(c, 'send test alerts');
    const name = c.req.param('name');
    if (!cfg.channels.some((ch) => ch.name === name)) return c.notFound();
    const error = deps.testAlert ? await deps.testAlert(name, c.var.session!.account.email) : 'test alerts are not available here';
    return show(c, { channelResult: { name, error } });
  });

  app.post('/settings/tokens/:id/revoke', async (c) => {
    adminOnly(c);
    await core.users.revokeToken(c.req.param('id'), consoleActor(c.var.session!));
    return c.redirect('/settings#tokens', 303);
  });
}
