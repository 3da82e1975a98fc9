/**
 * Bearer-token authentication of the HTTP app, as Hono middleware: a request without the
 * `Authorization: Bearer <token>` header, with another scheme or with a wrong token gets a 401
 * `{"error": "..."}` with `WWW-Authenticate: Bearer realm="tagstream"`. Tokens are compared in
 * a time that does not depend on where they differ.
 *
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { HttpError } from "./errors.ts";

/** Comparison of two strings in a time that depends only on their lengths (not on where they differ). */
function sameToken(a: string, token: string): boolean {
  let diff = a.length ^ token.length;
  const n = Math.max(a.length, token.length);
  for (let i = 0; i < n; i++) {
    diff |= (i < a.length ? a.charCodeAt(i) : 0) ^ (i < token.length ? token.charCodeAt(i) : 0);
  }
  return diff === 0;
}

/** Headers of a 401: the scheme the client must use. */
const CHALLENGE = { "WWW-Authenticate": 'Bearer realm="tagstream"' };

/**
 * Checks an `Authorization` header value (null: absent) against `token`: returns when it is
 * `Bearer <token>` (scheme in any case, spaces around the token allowed) or when `token` is
 * undefined (no authentication), throws a 401 {@linkcode HttpError} otherwise. For handlers that
 * run outside Hono's router (the `/predict` fast path); routes use {@linkcode bearerAuth}.
 *
 * @example
 * ```ts
 * import { checkBearer } from "./auth_middleware.ts";
 * checkBearer("bearer  s3cret ", "s3cret"); // passes
 * checkBearer(null, undefined); // passes: no token configured
 * try {
 *   checkBearer("Bearer nope", "s3cret");
 * } catch (e) {
 *   console.log((e as Error).message); // wrong bearer token
 * }
 * ```
 */
export function checkBearer(authorization: string | null, token: string | undefined): void {
  if (token === undefined) return;
  if (authorization === null) {
    throw new HttpError(401, "missing bearer token (Authorization: Bearer ...)", CHALLENGE);
  }
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (m === null) {
    throw new HttpError(401, "the Authorization header must be 'Bearer <token>'", CHALLENGE);
  }
  if (!sameToken(m[1], token)) throw new HttpError(401, "wrong bearer token", CHALLENGE);
}

/**
 * Hono middleware that lets a request through only with `Authorization: Bearer <token>` (see
 * {@linkcode checkBearer}); with `token` undefined it lets every request through. A refused
 * request is a thrown 401 {@linkcode HttpError}, answered by the app's error handler.
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { bearerAuth } from "./auth_middleware.ts";
 * import { errorResponse } from "./errors.ts";
 * const app = new Hono();
 * app.onError((err) => errorResponse(err));
 * app.post("/publish", bearerAuth("s3cret"), (c) => c.json({ published: true }));
 * console.log((await app.request("/publish", { method: "POST" })).status); // 401
 * const ok = await app.request("/publish", {
 *   method: "POST",
 *   headers: { authorization: "Bearer s3cret" },
 * });
 * console.log(ok.status); // 200
 * ```
 */
export function bearerAuth(token: string | undefined): MiddlewareHandler {
  if (token === undefined) return async (_c, next) => await next();
  return async (c, next) => {
    checkBearer(c.req.raw.headers.get("authorization"), token);
    await next();
  };
}
