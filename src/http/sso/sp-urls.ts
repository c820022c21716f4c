/**
 * The SP's URLs of one SAML connection (issue 19), apart from src/http/sso/saml.ts so the API's
 * connection view and the router name them without loading @node-saml/node-saml (issue 38: a
 * configuration that signs nobody in through SAML never loads it).
 */

/** The SP's URLs of one connection, all under `<public_url>/sso/saml/<uuid>`. */
export function spUrls(publicUrl: string, connectionUuid: string): { entityId: string; acs: string; metadata: string } {
  const entityId = `${publicUrl.replace(/\/+$/, '')}/sso/saml/${connectionUuid}`;
  return { entityId, acs: `${entityId}/acs`, metadata: `${entityId}/metadata` };
}
