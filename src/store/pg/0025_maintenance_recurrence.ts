/** PostgreSQL twin of migrations/0025_maintenance_recurrence.ts (issue 33 point 6): recurring maintenance windows. */
export const sql = `
ALTER TABLE maintenance_windows ADD COLUMN recurrence TEXT;
ALTER TABLE maintenance_windows ADD COLUMN timezone TEXT NOT NULL DEFAULT 'UTC';
ALTER TABLE maintenance_windows ADD COLUMN cuts TEXT NOT NULL DEFAULT '[]';
`;
