/**
 * Errors of the HTTP app and how they are answered: every error is a JSON `{"error": "..."}`
 * with its 4xx status (and headers, e.g. `WWW-Authenticate` on a 401), and an unexpected failure
 * of one request is a 500 for that request only.
 *
 * @module
 */

/**
 * A 4xx answer (or a 503, or a 500 that says more than "internal error", e.g. with `Retry-After`)
 * thrown by a handler or a middleware; {@linkcode errorResponse} turns it into the JSON answer.
 *
 * @example
 * ```ts
 * import { HttpError } from "./errors.ts";
 * const e = new HttpError(503, "the service is stopping", { "retry-after": "1" });
 * console.log(e.status, e.message, e.headers?.["retry-after"]); // 503 the service is stopping 1
 * ```
 */
export class HttpError extends Error {
  /**
   * @param status the 4xx (or 500, 503) status of the answer
   * @param message the answer's `error`
   * @param headers extra headers of the answer
   */
  constructor(
    readonly status: 400 | 401 | 404 | 408 | 413 | 415 | 500 | 503,
    message: string,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

const JSON_HEADERS = { "content-type": "application/json" };

/**
 * A JSON answer: `body` as JSON with `status`, the content type `application/json` and
 * `headers`.
 *
 * @example
 * ```ts
 * import { json } from "./errors.ts";
 * const r = json({ status: "ok" }, 200);
 * console.log(r.status, r.headers.get("content-type"), await r.text()); // 200 application/json {"status":"ok"}
 * ```
 */
export function json(body: unknown, status: number, headers?: Record<string, string>): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: headers === undefined
      ? JSON_HEADERS
      : { ...headers, "content-type": "application/json" },
  });
}

/**
 * The answer to an error thrown while answering a request: the status, message and headers of
 * an {@linkcode HttpError}, or a 500 for anything unexpected.
 *
 * @example
 * ```ts
 * import { errorResponse, HttpError } from "./errors.ts";
 * const r = errorResponse(new HttpError(404, "no model has been published yet"));
 * console.log(r.status, (await r.json()).error); // 404 no model has been published yet
 * console.log(errorResponse(new Error("boom")).status); // 500
 * ```
 */
export function errorResponse(err: unknown): Response {
  if (err instanceof HttpError) return json({ error: err.message }, err.status, err.headers);
  return json({ error: `internal error: ${(err as Error)?.message ?? String(err)}` }, 500);
}
