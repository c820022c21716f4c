import { z } from '@hono/zod-openapi';

/** `{uuid}` path parameter. */
export const UuidParam = z.object({ uuid: z.string().min(1).max(100).openapi({ param: { name: 'uuid', in: 'path' } }) });

/** Error body (CONTRACT.md "Errors and validation"). */
export const ErrorSchema = z
  .object({
    error: z.string(),
    message: z.string(),
    code: z.string().optional().openapi({ description: 'dotted machine-readable code, e.g. monitors.not_found' }),
    details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .openapi('Error');

const err = (description: string) => ({ content: { 'application/json': { schema: ErrorSchema } }, description });

/** The error responses every authenticated route may give. */
export const COMMON_ERRORS = {
  401: err('Missing or invalid API token'),
  403: err('Token lacks write scope'),
} as const;

/** Errors of routes with a body. */
export const BODY_ERRORS = { 400: err('Malformed JSON or a broken validation rule; names the field'), 413: err('Body over 1 MiB'), 415: err('Body is not application/json') } as const;

/** 404 for routes addressing one resource. */
export const NOT_FOUND = { 404: err('Unknown uuid') } as const;

/** 409 for state conflicts. */
export const CONFLICT = { 409: err('State conflict') } as const;

/** `{message}` answer of deletes. */
export const MessageSchema = z.object({ message: z.string() });

/** JSON response helper for route definitions. */
export function json<T extends z.ZodType>(schema: T, description: string) {
  return { content: { 'application/json': { schema } }, description };
}

/** JSON request body helper for route definitions (required). */
export function jsonBody<T extends z.ZodType>(schema: T) {
  return { body: { content: { 'application/json': { schema } }, required: true } };
}
