/**
 * The one error type that crosses layers. `status` is the HTTP status the edge answers with,
 * `code` is dotted (`monitors.not_found`, house rule 9), `message` is meant for a person and names the
 * field and the rule for validation errors (CONTRACT.md "Errors and validation").
 */
export class AppError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: ReadonlyArray<{ path: string; message: string }> | undefined;

  /**
   * @param status HTTP status (400, 401, 403, 404, 405, 409, 413, …)
   * @param code dotted machine-readable code, e.g. `monitors.not_found`
   * @param message human-readable text, e.g. `check_frequency: must be one of 10, 20, …`
   * @param details optional per-field validation problems
   */
  constructor(status: number, code: string, message: string, details?: ReadonlyArray<{ path: string; message: string }>) {
    super(message);
    this.name = 'AppError';
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

/** 400 for a broken validation rule; `field` is the API field name as the client sent it. */
export function invalid(field: string, rule: string, code = 'validation.invalid'): AppError {
  return new AppError(400, code, `${field}: ${rule}`, [{ path: field, message: rule }]);
}

/** 404 for an unknown resource, e.g. `notFound('monitors', 'Monitor')`. */
export function notFound(family: string, what: string): AppError {
  return new AppError(404, `${family}.not_found`, `${what} not found`);
}

/** 409 for a state conflict (CONTRACT.md: acknowledging a resolved outage, a taken subdomain). */
export function conflict(code: string, message: string): AppError {
  return new AppError(409, code, message);
}
