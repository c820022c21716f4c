/**
 * PostgreSQL twin of migrations/0019_probe_token_regions.ts (issue 30): the regions of a probe token
 * (comma-separated, '' = none: tokens made before it are refused until granted) and the token of each agent.
 */
export const sql = `
ALTER TABLE api_tokens ADD COLUMN regions TEXT NOT NULL DEFAULT '';
ALTER TABLE probe_agents ADD COLUMN token_id TEXT;
`;
