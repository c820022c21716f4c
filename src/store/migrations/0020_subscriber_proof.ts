/**
 * Subscriber proof step and send caps (issue 30). Placeholder: filled in by the change that needs it.
 */
export const sql = ``;
