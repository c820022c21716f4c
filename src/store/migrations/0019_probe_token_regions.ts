/**
 * Probe tokens bound to regions (issue 30): `api_tokens.regions` lists the regions a `probe` token
 * may poll and report for (comma-separated region names, '' = none; unused by other scopes), and
 * `probe_agents.token_id` the token whose agent an agent id is (an id is never shared between tokens).
 * Probe tokens made before this migration get no region: their agents are refused until an admin
 * grants regions (`pharos token grant KEY --region …`; the start-up log names each such token).
 * Agents stored before it have no token: the first token to poll as one after the upgrade owns it.
 */
export const sql = `
ALTER TABLE api_tokens ADD COLUMN regions TEXT NOT NULL DEFAULT '';
ALTER TABLE probe_agents ADD COLUMN token_id TEXT;
`;
