/**
 * The tool API's error shape (tool-api.md; `ToolError` in tools.schemas.ts): `{object: "tool_api.error",
 * error: {code, message}}`, with `quota` and `rateLimit` beside it when the error carries them. Used by the
 * tool routes' own error handler and registered with the shared error machinery for everything else under
 * the prefix (unknown routes, errors before routing, Node's parser errors: src/http/error-handler.ts).
 */
export const TOOL_API_PREFIX = '/api/v1/tools';

export function toolErrorEnvelope(error: { code: string; message: string; details?: Record<string, unknown> }): Record<string, unknown> {
  return { object: 'tool_api.error', error: { code: error.code, message: error.message }, ...(error.details ?? {}) };
}
