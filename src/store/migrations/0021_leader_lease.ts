/**
 * Leadership as a lease with fencing (issue 31). Placeholder: filled in by the change that needs it.
 */
export const sql = ``;
