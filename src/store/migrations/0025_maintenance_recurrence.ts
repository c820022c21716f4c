/**
 * Recurring maintenance windows (issue 33 point 6): `recurrence` is the window's repetition as JSON
 * (domain/maintenance-recurrence.ts `Recurrence`) or NULL for a one-off window (every window made
 * before this migration); `timezone` the IANA zone its times of day are read in; `cuts` the instants
 * (JSON array of epoch ms) at which "end now" ended the occurrence running then. For a recurring
 * window `start_at`/`end_at` bound all its occurrences (the index range reads stay as they were).
 */
export const sql = `
ALTER TABLE maintenance_windows ADD COLUMN recurrence TEXT;
ALTER TABLE maintenance_windows ADD COLUMN timezone TEXT NOT NULL DEFAULT 'UTC';
ALTER TABLE maintenance_windows ADD COLUMN cuts TEXT NOT NULL DEFAULT '[]';
`;
