import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { CONTACT_KINDS, ContactMethodCreate, ContactMethodUpdate, ProfileBody, RulesBody, VerifyBody, type ContactMethod, type NotificationRule, type TeamMemberRow } from '../../domain/people.ts';
import { AppError } from '../../lib/errors.ts';
import type { AppEnv, HttpDeps } from '../context.ts';
import { validationHook } from '../errors.ts';
import { apiActor } from '../audit-actor.ts';
import { BODY_ERRORS, COMMON_ERRORS, ErrorSchema, MessageSchema, NOT_FOUND, UuidParam, json, jsonBody } from './common.ts';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

const TeamMemberSchema = z
  .object({
    uuid: z.string().openapi({ example: 'user_4mXbT0hUq3wRQyLk9eZ2Nc' }),
    email: z.string(),
    name: z.string(),
    phone: z.string().nullable().openapi({ description: 'E.164, or null' }),
    accountRole: z.enum(['admin', 'editor', 'viewer']).openapi({ description: "The hosted service's name of the console role" }),
    role: z.enum(['admin', 'editor', 'viewer']).openapi({ description: 'The same as accountRole' }),
    ssoPictureUrl: z.null().openapi({ description: 'Always null (kept from the hosted model)' }),
    disabled: z.boolean(),
  })
  .openapi('TeamMember');

const ContactMethodSchema = z
  .object({
    uuid: z.string().openapi({ example: 'cm_4mXbT0hUq3wRQyLk9eZ2Nc' }),
    kind: z.enum(CONTACT_KINDS),
    label: z.string(),
    address_hint: z.string().openapi({ description: 'The address masked (never the whole address)', example: '+1•••••••67' }),
    verified: z.boolean().openapi({ description: 'Only verified methods are paged' }),
    verified_at: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('ContactMethod');

const CreatedSchema = ContactMethodSchema.extend({
  code_sent: z.boolean().openapi({ description: 'The 6-digit code went out (else see code_error; ask again with …/send-code)' }),
  code_error: z.string().nullable(),
}).openapi('ContactMethodCreated');

const RulesSchema = z
  .object({
    rules: z.array(z.object({ method_uuid: z.string(), kind: z.enum(CONTACT_KINDS), delay_minutes: z.number().int() })),
    default: z.boolean().openapi({ description: 'true when no rules are set: every verified method is paged at once' }),
  })
  .openapi('NotificationRules');

/** A team member in the hosted service's `list_team_members` shape (hyperping-go mcp_models.go TeamMember) plus `role`, `disabled`. */
export function toTeamMemberJson(m: TeamMemberRow): z.infer<typeof TeamMemberSchema> {
  return { uuid: m.uuid, email: m.email, name: m.name, phone: m.phone, accountRole: m.role, role: m.role, ssoPictureUrl: null, disabled: m.disabledAt !== null };
}

/** A contact method → API shape (masked address only). */
export function toContactMethodJson(m: ContactMethod): z.infer<typeof ContactMethodSchema> {
  return { uuid: m.uuid, kind: m.kind, label: m.label, address_hint: m.hint, verified: m.verifiedAt !== null, verified_at: iso(m.verifiedAt), created_at: iso(m.createdAt)!, updated_at: iso(m.updatedAt)! };
}

const err = (description: string) => ({ content: { 'application/json': { schema: ErrorSchema } }, description });
const MethodParam = z.object({ method: z.string().min(1).max(100).openapi({ param: { name: 'method', in: 'path' } }) });

/**
 * The routes of one person's contact methods and rules, under `/v1/me` (`who: 'me'`: the caller) or
 * `/v1/team-members/{uuid}` (admins for anyone; a person for themselves). Thin: parse → core → JSON.
 */
function personRoutes(app: OpenAPIHono<AppEnv>, core: HttpDeps['core'], who: 'me' | 'member'): void {
  const base = who === 'me' ? '' : '/{uuid}';
  const params = who === 'me' ? MethodParam : UuidParam.extend(MethodParam.shape);
  const baseParams = who === 'me' ? {} : { params: UuidParam };
  const tags = ['Team members'];
  const whose = who === 'me' ? 'your' : "a team member's";
  const FORBIDDEN = { 403: err('Not an admin, and not your own') };

  /** The person whose methods these are; a person may act for themselves, admins for anyone. */
  async function subject(c: Context<AppEnv>): Promise<string> {
    const self = c.var.principal.user.uuid;
    if (who === 'me') return self;
    const target = c.req.param('uuid') ?? '';
    if (!(await core.people.mayManage(self, target))) {
      throw new AppError(403, 'team_members.forbidden', "only admins see or change another person's contact methods and rules");
    }
    await core.people.member(target);
    return target;
  }
  const method = (c: Context<AppEnv>) => c.req.param('method') ?? '';
  const rulesJson = async (user: string, rules: NotificationRule[]) => {
    const kinds = new Map((await core.people.methods(user)).map((m) => [m.uuid, m.kind]));
    return { rules: rules.map((r) => ({ method_uuid: r.methodUuid, kind: kinds.get(r.methodUuid)!, delay_minutes: r.delayMinutes })), default: rules.length === 0 };
  };

  app.openapi(
    createRoute({ method: 'get', path: `${base}/contact-methods`, tags, summary: `List ${whose} contact methods`, request: baseParams, responses: { 200: json(z.array(ContactMethodSchema), 'In the order added'), ...COMMON_ERRORS, ...NOT_FOUND } }),
    async (c) => c.json((await core.people.methods(await subject(c))).map(toContactMethodJson), 200),
  );
  app.openapi(
    createRoute({
      method: 'post',
      path: `${base}/contact-methods`,
      tags,
      summary: `Add ${whose} contact method (unverified; a 6-digit code is sent to it)`,
      request: { ...baseParams, ...jsonBody(z.object(ContactMethodCreate.shape).strict().openapi('ContactMethodCreate')) },
      responses: { 201: json(CreatedSchema, 'The method, unverified'), ...COMMON_ERRORS, ...BODY_ERRORS, ...NOT_FOUND, ...FORBIDDEN },
    }),
    async (c) => {
      const { method: m, codeError } = await core.people.addMethod(await subject(c), c.req.valid('json'), apiActor(c.var.principal));
      // A console method is verified at once: no code is sent (code_sent false, code_error null).
      return c.json({ ...toContactMethodJson(m), code_sent: codeError === null && m.kind !== 'console', code_error: codeError }, 201);
    },
  );
  app.openapi(
    createRoute({ method: 'get', path: `${base}/contact-methods/{method}`, tags, summary: `Get ${whose} contact method`, request: { params }, responses: { 200: json(ContactMethodSchema, 'The method'), ...COMMON_ERRORS, ...NOT_FOUND } }),
    async (c) => c.json(toContactMethodJson(await core.people.method(await subject(c), method(c))), 200),
  );
  app.openapi(
    createRoute({ method: 'patch', path: `${base}/contact-methods/{method}`, tags, summary: `Rename ${whose} contact method (a new address is a new method)`, request: { params, ...jsonBody(z.object(ContactMethodUpdate.shape).strict().openapi('ContactMethodUpdate')) }, responses: { 200: json(ContactMethodSchema, 'The method'), ...COMMON_ERRORS, ...BODY_ERRORS, ...NOT_FOUND } }),
    async (c) => c.json(toContactMethodJson(await core.people.setLabel(await subject(c), method(c), c.req.valid('json').label, apiActor(c.var.principal))), 200),
  );
  app.openapi(
    createRoute({ method: 'delete', path: `${base}/contact-methods/{method}`, tags, summary: `Delete ${whose} contact method (and the rules naming it)`, request: { params }, responses: { 200: json(MessageSchema, 'Deleted'), ...COMMON_ERRORS, ...NOT_FOUND } }),
    async (c) => {
      await core.people.removeMethod(await subject(c), method(c), apiActor(c.var.principal));
      return c.json({ message: 'Contact method deleted' }, 200);
    },
  );
  app.openapi(
    createRoute({
      method: 'post',
      path: `${base}/contact-methods/{method}/send-code`,
      tags,
      summary: 'Send a new verification code (one a minute, five an hour)',
      request: { params },
      responses: { 200: json(MessageSchema, 'Sent'), ...COMMON_ERRORS, ...NOT_FOUND, 409: err('Verified already'), 429: err('Too soon or too many codes'), 502: err('The provider refused') },
    }),
    async (c) => {
      await core.people.sendCode(await subject(c), method(c));
      return c.json({ message: 'Code sent' }, 200);
    },
  );
  app.openapi(
    createRoute({
      method: 'post',
      path: `${base}/contact-methods/{method}/verify`,
      tags,
      summary: 'Verify a contact method with the 6-digit code sent to it (valid 10 minutes; 5 wrong codes void it)',
      request: { params, ...jsonBody(z.object(VerifyBody.shape).strict().openapi('ContactMethodVerify')) },
      responses: { 200: json(ContactMethodSchema, 'Verified'), ...COMMON_ERRORS, ...BODY_ERRORS, ...NOT_FOUND, 429: err('Five wrong codes: ask for a new one') },
    }),
    async (c) => c.json(toContactMethodJson(await core.people.verify(await subject(c), method(c), c.req.valid('json').code, apiActor(c.var.principal))), 200),
  );
  app.openapi(
    createRoute({ method: 'get', path: `${base}/notification-rules`, tags, summary: `${who === 'me' ? 'Your' : "A team member's"} notification rules, in order`, request: baseParams, responses: { 200: json(RulesSchema, 'The rules'), ...COMMON_ERRORS, ...NOT_FOUND } }),
    async (c) => {
      const user = await subject(c);
      return c.json(await rulesJson(user, await core.people.rules(user)), 200);
    },
  );
  app.openapi(
    createRoute({
      method: 'put',
      path: `${base}/notification-rules`,
      tags,
      summary: 'Replace the notification rules ("method after N minutes if not acknowledged"; [] = every verified method at once)',
      request: { ...baseParams, ...jsonBody(z.object(RulesBody.shape).strict().openapi('NotificationRulesWrite')) },
      responses: { 200: json(RulesSchema, 'The rules'), ...COMMON_ERRORS, ...BODY_ERRORS, ...NOT_FOUND },
    }),
    async (c) => {
      const user = await subject(c);
      const rules = c.req.valid('json').rules.map((r) => ({ methodUuid: r.method_uuid, delayMinutes: r.delay_minutes }));
      return c.json(await rulesJson(user, await core.people.setRules(user, rules, apiActor(c.var.principal))), 200);
    },
  );
}

/**
 * /v1/team-members (issue 34 point 1): every console user with name, email, phone and role (the hosted
 * service's `list_team_members`); a person's profile, contact methods and rules (admins for anyone).
 */
export function teamMembersRouter(deps: Pick<HttpDeps, 'core'>) {
  const { core } = deps;
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const tags = ['Team members'];
  app.openapi(
    createRoute({ method: 'get', path: '/', tags, summary: 'List team members (every console user)', responses: { 200: json(z.array(TeamMemberSchema), 'By name'), ...COMMON_ERRORS } }),
    async (c) => c.json((await core.people.members()).map(toTeamMemberJson), 200),
  );
  app.openapi(
    createRoute({ method: 'get', path: '/{uuid}', tags, summary: 'Get a team member', request: { params: UuidParam }, responses: { 200: json(TeamMemberSchema, 'The member'), ...COMMON_ERRORS, ...NOT_FOUND } }),
    async (c) => c.json(toTeamMemberJson(await core.people.member(c.req.valid('param').uuid)), 200),
  );
  app.openapi(
    createRoute({ method: 'patch', path: '/{uuid}', tags, summary: "Change a team member's name or phone (yourself, or anyone as an admin)", request: { params: UuidParam, ...jsonBody(z.object(ProfileBody.shape).strict().openapi('TeamMemberUpdate')) }, responses: { 200: json(TeamMemberSchema, 'The member'), ...COMMON_ERRORS, ...BODY_ERRORS, ...NOT_FOUND } }),
    async (c) => {
      const self = c.var.principal.user.uuid;
      const target = c.req.valid('param').uuid;
      if (!(await core.people.mayManage(self, target))) throw new AppError(403, 'team_members.forbidden', "only admins change another person's profile");
      return c.json(toTeamMemberJson(await core.people.setProfile(target, c.req.valid('json'), apiActor(c.var.principal))), 200);
    },
  );
  personRoutes(app, core, 'member');
  return app;
}

/** /v1/me (issue 34 point 1): the caller's own profile, contact methods and notification rules. */
export function meRouter(deps: Pick<HttpDeps, 'core'>) {
  const { core } = deps;
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const tags = ['Team members'];
  app.openapi(
    createRoute({ method: 'get', path: '/', tags, summary: 'Your team member entry', responses: { 200: json(TeamMemberSchema, 'You'), ...COMMON_ERRORS } }),
    async (c) => c.json(toTeamMemberJson(await core.people.member(c.var.principal.user.uuid)), 200),
  );
  app.openapi(
    createRoute({ method: 'patch', path: '/', tags, summary: 'Change your name or phone', request: jsonBody(z.object(ProfileBody.shape).strict().openapi('MeUpdate')), responses: { 200: json(TeamMemberSchema, 'You'), ...COMMON_ERRORS, ...BODY_ERRORS } }),
    async (c) => c.json(toTeamMemberJson(await core.people.setProfile(c.var.principal.user.uuid, c.req.valid('json'), apiActor(c.var.principal))), 200),
  );
  personRoutes(app, core, 'me');
  return app;
}
