/** PostgreSQL twin of migrations/0023_monitor_badges.ts (issue 33 point 8): a monitor's opt-in to public badges. */
export const sql = `
ALTER TABLE monitors ADD COLUMN public_badges INTEGER NOT NULL DEFAULT 0;
`;
