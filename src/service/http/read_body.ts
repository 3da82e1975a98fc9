/**
 * Reading a request body within a size limit and a time limit: a 413 beyond the limit (the rest
 * of the body is read and dropped, bounded, so that a client still sending reads the answer), a
 * 408 when it does not arrive in time; both close the connection (Deno's server once the body
 * has all arrived; `serve`'s TCP front sooner, see `tcp_front.ts`). A compressed body
 * (`Content-Encoding` other than `identity`) is dropped the same way and answered 415. A body
 * still arriving when the service starts stopping is cut (the caller's answer, a 503) within
 * {@linkcode STOP_CHECK_MS}, so that a slow or stalled client does not hold the stop up for the
 * body timeout.
 *
 * @module
 */
import { concatBytes } from "../../data/bytes.ts";
import { HttpError } from "./errors.ts";

/** How much of an oversized body is still read (and dropped) so that the client reads the 413. */
const DRAIN_LIMIT = 64 << 20;

/**
 * How often, in milliseconds, a body still arriving checks whether the service is stopping: a
 * stop cuts it within this time. Short beside a container platform's grace between SIGTERM and
 * SIGKILL (10-30 s), which the last checkpoint needs; long enough that the check costs nothing
 * (one timer a body, re-armed: the same timer as the body timeout's, so a body that arrives at
 * once, as nearly all do, costs no timer more than before).
 */
export const STOP_CHECK_MS = 100;

/** A `Content-Encoding` that leaves the body as it is (empty, or `identity`s). */
const IDENTITY = /^[ \t]*(identity[ \t]*(,[ \t]*identity[ \t]*)*)?$/i;

/** Reads and drops what is left of a body, up to {@linkcode DRAIN_LIMIT} bytes in all and the
 * deadline, then cancels it. */
async function drain(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  total: number,
  deadline: Promise<never>,
  timedOut: () => boolean,
): Promise<void> {
  while (total <= DRAIN_LIMIT && !timedOut()) {
    const r = await Promise.race([reader.read(), deadline]).catch(() => undefined);
    if (r === undefined || r.done) break;
    total += r.value.length;
  }
  await reader.cancel().catch(() => {});
}

/**
 * Reads a request body, refusing it (413 {@linkcode HttpError}) beyond `limit` bytes without
 * keeping the rest (the rest is read and dropped, up to 64 MiB and the timeout, so that the
 * client is not reset before it reads the answer), and (408) when it does not arrive within
 * `timeoutMs`, and (415, body dropped) when it has a `Content-Encoding` other than `identity`
 * (compressed bodies are not decoded). `what` names the endpoint in the error messages.
 * `stopping`, when given, is asked every {@linkcode STOP_CHECK_MS} while the body arrives: an
 * error it returns (the answer to a body cut by a stop, e.g. a 503) ends the read at once, the
 * rest of the body unread (the connection is then closed by the stop: see `serve`); it is also
 * the answer to a body that breaks off while the service is stopping (Deno's server shutdown
 * drops the bodies still arriving).
 *
 * @example
 * ```ts
 * import { readBody } from "./read_body.ts";
 * const req = new Request("http://x/events", { method: "POST", body: "abc" });
 * console.log((await readBody(req, 10, "/events", 1000)).length); // 3
 * const big = new Request("http://x/events", { method: "POST", body: "abcdef" });
 * try {
 *   await readBody(big, 4, "/events", 1000);
 * } catch (e) {
 *   console.log((e as Error).message); // /events body is larger than the limit of 4 bytes
 * }
 * ```
 */
export async function readBody(
  req: Request,
  limit: number,
  what: string,
  timeoutMs: number,
  stopping?: () => HttpError | undefined,
): Promise<Uint8Array> {
  const tooLarge = () =>
    new HttpError(413, `${what} body is larger than the limit of ${limit} bytes`, {
      connection: "close",
    });
  // no `connection: close` of our own: the server adds it to an answer that leaves the body
  // unread (a 408's always does), and a second one would repeat the header
  const tooSlow = () =>
    new HttpError(
      408,
      `${what} body did not arrive within the body timeout of ${timeoutMs / 1000} s`,
    );
  const declared = req.headers.get("content-length");
  let timer: ReturnType<typeof setTimeout> | undefined;
  // the body timed out or was cut by a stop
  let timedOut = false;
  const deadline = new Promise<never>((_, reject) => {
    if (stopping === undefined) {
      timer = setTimeout(() => {
        timedOut = true;
        reject(tooSlow());
      }, timeoutMs);
      return;
    }
    // one timer, re-armed every STOP_CHECK_MS until the body timeout
    const end = performance.now() + timeoutMs;
    const check = () => {
      const cut = stopping();
      const left = end - performance.now();
      if (cut === undefined && left > 0) {
        timer = setTimeout(check, Math.min(STOP_CHECK_MS, left));
        return;
      }
      timedOut = true;
      reject(cut ?? tooSlow());
    };
    timer = setTimeout(check, Math.min(STOP_CHECK_MS, timeoutMs));
  });
  deadline.catch(() => {});
  try {
    const encoding = req.headers.get("content-encoding");
    if (encoding !== null && !IDENTITY.test(encoding)) {
      // drop the body (bounded), so that a client still sending reads the answer
      if (req.body !== null) await drain(req.body.getReader(), 0, deadline, () => timedOut);
      throw new HttpError(
        415,
        `${what} body has Content-Encoding ${
          JSON.stringify(encoding)
        }: only uncompressed bodies (identity) are read; send it without Content-Encoding`,
        { "accept-encoding": "identity" },
      );
    }
    if (req.body === null) return new Uint8Array(0);
    // A declared length within the limit bounds the body (HTTP framing): read it in one go,
    // without touching `req.body` (in Deno, materialising the body stream costs more than the
    // rest of a /predict request: ~35% fewer requests per second under load).
    if (declared !== null && /^\d+$/.test(declared) && Number(declared) <= limit) {
      return new Uint8Array(await Promise.race([req.arrayBuffer(), deadline]));
    }
    const reader = req.body.getReader();
    const parts: Uint8Array[] = [];
    let total = 0;
    while (true) {
      const { done, value } = await Promise.race([reader.read(), deadline]);
      if (done) break;
      total += value.length;
      if (total > limit) {
        // drop the rest (bounded), then answer: a client still sending reads the 413
        await drain(reader, total, deadline, () => timedOut);
        throw tooLarge();
      }
      parts.push(value);
    }
    return concatBytes(parts, total);
  } catch (e) {
    // a body that breaks off (the client went away, a reset) is the client's: a 400, not a 500;
    // but one broken off by a stop (the server's shutdown drops the bodies it waits for) is the
    // stop's answer
    if (e instanceof HttpError) throw e;
    const cut = stopping?.();
    if (cut !== undefined) throw cut;
    throw new HttpError(400, `${what} body could not be read: ${(e as Error)?.message ?? e}`);
  } finally {
    clearTimeout(timer);
  }
}
