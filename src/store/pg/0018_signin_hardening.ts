/** PostgreSQL twin of migrations/0018_signin_hardening.ts (issue 30). Placeholder: filled in by the change that needs it. */
export const sql = ``;
