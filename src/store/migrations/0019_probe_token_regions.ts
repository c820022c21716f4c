/**
 * Probe tokens bound to regions (issue 30). Placeholder: filled in by the change that needs it.
 */
export const sql = ``;
