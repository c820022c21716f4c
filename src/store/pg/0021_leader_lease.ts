/** PostgreSQL twin of migrations/0021_leader_lease.ts (issue 31). Placeholder: filled in by the change that needs it. */
export const sql = ``;
