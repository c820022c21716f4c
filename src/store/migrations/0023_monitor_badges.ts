/**
 * Per-monitor public badges (issue 33 point 8): `monitors.public_badges` is 1 when the monitor's
 * badges (`/badge/monitors/<uuid>/…`, src/http/badges.ts) may be served to anyone; 0 (the default,
 * and every monitor made before this migration) answers them 404, as for an unknown monitor.
 */
export const sql = `
ALTER TABLE monitors ADD COLUMN public_badges INTEGER NOT NULL DEFAULT 0;
`;
