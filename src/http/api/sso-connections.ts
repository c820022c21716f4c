import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import { SsoConnectionBody, type SsoConnection } from '../../domain/sso-connection.ts';
import { iso } from '../../domain/time.ts';
import { apiActor } from '../audit-actor.ts';
import type { AppEnv, HttpDeps } from '../context.ts';
import { validationHook } from '../errors.ts';
import { spUrls } from '../sso/sp-urls.ts';
import { BODY_ERRORS, COMMON_ERRORS, CONFLICT, MessageSchema, NOT_FOUND, UuidParam, json, jsonBody } from './common.ts';

/** A SAML SSO connection as the API shows it (docs/api.md "Single sign-on"). */
export const SsoConnectionSchema = z
  .object({
    uuid: z.string().openapi({ example: 'sso_4mJ8yW1c2Vq0aB7dE9fG3h' }),
    name: z.string(),
    provider: z.string().openapi({ description: 'a label (okta, azure, authentik, keycloak, generic…)' }),
    entry_point: z.string().openapi({ description: "the IdP's single sign-on URL (HTTP-Redirect binding)" }),
    issuer: z.string().openapi({ description: "the IdP's entity id" }),
    idp_certificate: z.string().openapi({ description: "the IdP's signing certificate (PEM)" }),
    sp_entity_id: z.string().openapi({ description: "Pharos's entity id for this connection (the audience)" }),
    acs_url: z.string().openapi({ description: 'Assertion Consumer Service URL (HTTP-POST binding) to register at the IdP' }),
    metadata_url: z.string().openapi({ description: 'SP metadata to import at the IdP' }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('SsoConnection');

/** Domain connection → API shape. */
export function toSsoConnectionJson(c: SsoConnection, publicUrl: string): z.infer<typeof SsoConnectionSchema> {
  const urls = spUrls(publicUrl, c.uuid);
  return {
    uuid: c.uuid,
    name: c.name,
    provider: c.provider,
    entry_point: c.entryPoint,
    issuer: c.issuer,
    idp_certificate: c.idpCertificate,
    sp_entity_id: urls.entityId,
    acs_url: urls.acs,
    metadata_url: urls.metadata,
    createdAt: iso(c.createdAt),
    updatedAt: iso(c.updatedAt),
  };
}

/** /v1/sso-connections: SAML connections for status pages with `saml_sso` (issue 19). */
export function ssoConnectionsRouter(deps: Pick<HttpDeps, 'core'>) {
  const { core } = deps;
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const tags = ['SSO connections'];
  const item = { params: UuidParam };
  const out = (c: SsoConnection) => toSsoConnectionJson(c, core.config.public_url);
  app.openapi(
    createRoute({ method: 'get', path: '/', tags, summary: 'List SSO connections', responses: { 200: json(z.array(SsoConnectionSchema), 'All connections'), ...COMMON_ERRORS } }),
    async (c) => c.json((await core.identity.connections.list()).map(out), 200),
  );
  app.openapi(
    createRoute({ method: 'post', path: '/', tags, summary: 'Create a SAML SSO connection', request: jsonBody(SsoConnectionBody), responses: { 201: json(SsoConnectionSchema, 'Created'), ...COMMON_ERRORS, ...BODY_ERRORS } }),
    async (c) => c.json(out(await core.identity.connections.create(c.req.valid('json'), apiActor(c.var.principal))), 201),
  );
  app.openapi(
    createRoute({ method: 'get', path: '/{uuid}', tags, summary: 'Get an SSO connection', request: item, responses: { 200: json(SsoConnectionSchema, 'The connection'), ...COMMON_ERRORS, ...NOT_FOUND } }),
    async (c) => c.json(out(await core.identity.connections.get(c.req.valid('param').uuid)), 200),
  );
  app.openapi(
    createRoute({ method: 'put', path: '/{uuid}', tags, summary: 'Update an SSO connection (fields left out keep their values)', request: { ...item, ...jsonBody(SsoConnectionBody) }, responses: { 200: json(SsoConnectionSchema, 'The connection'), ...COMMON_ERRORS, ...BODY_ERRORS, ...NOT_FOUND } }),
    async (c) => c.json(out(await core.identity.connections.update(c.req.valid('param').uuid, c.req.valid('json'), apiActor(c.var.principal))), 200),
  );
  app.openapi(
    createRoute({ method: 'delete', path: '/{uuid}', tags, summary: 'Delete an SSO connection (409 while a status page uses it)', request: item, responses: { 200: json(MessageSchema, 'Deleted'), ...COMMON_ERRORS, ...NOT_FOUND, ...CONFLICT } }),
    async (c) => {
      await core.identity.connections.delete(c.req.valid('param').uuid, apiActor(c.var.principal));
      return c.json({ message: 'SSO connection deleted' }, 200);
    },
  );
  return app;
}
