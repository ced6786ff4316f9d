// Helpers of the OpenAPI description that admin still writes by hand (the data and power routes).
// The error answers, the security requirements and schemes are @fw/http's, shared with the routes
// that declare their own contract (route-openapi.ts), so there is one table of them.
import { DOWNLOAD_SECURITY, NO_SECURITY, TOKEN_SECURITY, errorAnswers, errorResponses, securitySchemes } from '@fw/http';
import type { JsonSchema } from './openapi-schemas.js';

export { DOWNLOAD_SECURITY, NO_SECURITY, TOKEN_SECURITY, errorResponses, securitySchemes };

/** One OpenAPI operation, as plain data. */
export type Operation = Record<string, unknown>;

/** References to the error responses of these statuses (500 and 503 always among them). */
export const errors: (...statuses: number[]) => Record<string, unknown> = errorAnswers;

/** A JSON answer. */
export function jsonAnswer(description: string, schema: JsonSchema, headers?: Record<string, unknown>): Record<string, unknown> {
  return { description, ...(headers ? { headers } : {}), content: { 'application/json': { schema } } };
}

/** A required JSON body. */
export function jsonBody(schema: JsonSchema, required = true): Record<string, unknown> {
  return { required, content: { 'application/json': { schema } } };
}

/** A path parameter. */
export function pathParam(name: string, schema: JsonSchema, description?: string): Record<string, unknown> {
  return { name, in: 'path', required: true, schema, ...(description ? { description } : {}) };
}

/** A query parameter. */
export function queryParam(name: string, schema: JsonSchema, description: string): Record<string, unknown> {
  return { name, in: 'query', required: false, schema, description };
}
