/**
 * SAML SSO connections (issue 19, docs/api.md "Single sign-on"): one row per identity provider a
 * status page may send visitors to. `issuer` is the IdP's entity ID; the IdP's signing certificate
 * is kept as PEM. Status pages name a connection in their settings JSON (`sso_connection_uuid`).
 */
export const sql = `
CREATE TABLE sso_connections (
  id INTEGER PRIMARY KEY,
  uuid TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  provider TEXT NOT NULL,
  entry_point TEXT NOT NULL,
  issuer TEXT NOT NULL,
  idp_certificate TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
`;
