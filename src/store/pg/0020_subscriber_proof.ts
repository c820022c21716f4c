/** PostgreSQL twin of migrations/0020_subscriber_proof.ts (issue 30). Placeholder: filled in by the change that needs it. */
export const sql = ``;
