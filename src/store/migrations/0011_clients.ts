/**
 * What the hosted service's clients read (issue 15, docs/api.md "Clients"): a `uuid` per incident
 * update (existing updates get a random one), an incident's `date` (when it started; null = its
 * creation), and the language of a subscriber added through the API.
 */
export const sql = `
ALTER TABLE incident_updates ADD COLUMN uuid TEXT;
UPDATE incident_updates SET uuid = 'upd_' || substr(lower(hex(randomblob(11))), 1, 22) WHERE uuid IS NULL;
CREATE UNIQUE INDEX incident_updates_uuid ON incident_updates(uuid);
ALTER TABLE incidents ADD COLUMN started_at INTEGER;
ALTER TABLE subscribers ADD COLUMN language TEXT;
`;
