/** PostgreSQL twin of migrations/0019_probe_token_regions.ts (issue 30). Placeholder: filled in by the change that needs it. */
export const sql = ``;
