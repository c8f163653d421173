/** A non-2xx answer of the API, with the fields of its ErrorResponse body. */
export interface ErrorField {
  /** where the problem is, e.g. ['plan', 'targets', 0, 'text'] */
  path: Array<string | number> | string;
  source?: string;
  message?: string;
}

export class ServiceApiError extends Error {
  override readonly name = 'ServiceApiError';
  /** the catalog code, e.g. `publish_plan_validation_failed` */
  readonly error: string;
  readonly status: number;
  readonly fields: ErrorField[];
  readonly requestId: string | null;
  /** the whole decoded body (extra fields such as `issues`, `allowedFrom`, `references`) */
  readonly body: Record<string, unknown>;

  constructor(status: number, body: unknown, requestId: string | null) {
    const b = body && typeof body === 'object' ? (body as Record<string, unknown>) : {};
    // the tool API nests its error: {object: "tool_api.error", error: {code, message}}
    const nested = b.error && typeof b.error === 'object' ? (b.error as Record<string, unknown>) : null;
    const code = nested ? String(nested.code ?? 'unknown_error') : typeof b.error === 'string' ? b.error : 'unknown_error';
    const message = nested ? String(nested.message ?? '') : typeof b.message === 'string' ? b.message : `HTTP ${status}`;
    super(`${code}: ${message}`);
    this.error = code;
    this.status = status;
    this.fields = Array.isArray(b.fields) ? (b.fields as ErrorField[]) : [];
    this.requestId = typeof b.requestId === 'string' ? b.requestId : requestId;
    this.body = b;
  }
}

/**
 * openapi-fetch answers `{data}` or `{error}`; this returns the data or throws a ServiceApiError.
 * (A 204 answer resolves to undefined at run time.)
 */
export async function unwrap<T, E>(
  call: Promise<{ data: T; error?: never; response: Response } | { data?: never; error: E; response: Response }>,
): Promise<Exclude<T, undefined>> {
  const result = await call;
  if (result.error !== undefined || !result.response.ok) {
    throw new ServiceApiError(result.response.status, result.error, result.response.headers.get('x-request-id'));
  }
  return result.data as Exclude<T, undefined>;
}

/**
 * The request never got an answer: the base URL is wrong, the server is not running, or the network
 * failed. The message names the URL (fetch's own error says only "fetch failed").
 */
export class ServiceApiUnreachableError extends Error {
  override readonly name = 'ServiceApiUnreachableError';
  readonly url: string;

  constructor(method: string, url: string, cause: unknown) {
    const detail = cause instanceof Error ? ((cause.cause as Error | undefined)?.message ?? cause.message) : String(cause);
    super(
      `Could not reach the API at ${new URL(url).origin} (${method} ${url}): ${detail}. Check the base URL (the server listens on port 8080 by default).`,
      { cause },
    );
    this.url = url;
  }
}
