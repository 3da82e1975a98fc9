/**
 * The bad-input check: a running `tagstream serve` gets malformed JSON, unknown fields, huge
 * lines, NaN/Infinity, negative indices, missing and wrong tokens, bodies over the limit (declared
 * and streamed), invalid UTF-8, bad `/predict` requests, and (in the full run) random mutations
 * of valid events. Each must get the expected 4xx with an error message, the process must keep
 * serving, and every event accepted before must still be there, also after a `kill -9` and a
 * restart (the write-ahead log).
 *
 * @module
 */
import { Rng } from "../../src/random/mod.ts";
import { getJson, HttpConnection, type ServiceProcess, startService } from "./harness.ts";

/**
 * Options of {@linkcode runBadInputCheck}.
 *
 * @example
 * ```ts
 * import type { BadInputOptions } from "./bad_input.ts";
 * const o: BadInputOptions = { rounds: 1, fuzz: 0 };
 * console.log(o.rounds); // 1
 * ```
 */
export interface BadInputOptions {
  /** Times the list of bad requests is sent (default 1). */
  rounds?: number;
  /** Random mutated event lines sent (default 0). */
  fuzz?: number;
  /** Seed of the fuzzing (default 1). */
  seed?: number;
  /** Progress messages. */
  log?: (m: string) => void;
}

/**
 * One bad request and the status it must get.
 *
 * @example
 * ```ts
 * import type { BadCase } from "./bad_input.ts";
 * const c: BadCase = { name: "x", method: "POST", path: "/events", body: "{", expect: 400 };
 * console.log(c.expect); // 400
 * ```
 */
export interface BadCase {
  name: string;
  method: string;
  path: string;
  body?: Uint8Array | string;
  headers?: Record<string, string>;
  /** No token (the default sends the right one). */
  noToken?: boolean;
  expect: number;
  /** The error text must contain this. */
  mentions?: string;
}

/**
 * What {@linkcode runBadInputCheck} reports.
 *
 * @example
 * ```ts
 * import type { BadInputReport } from "./bad_input.ts";
 * function passed(r: BadInputReport): boolean { return r.pass; }
 * console.log(typeof passed); // "function"
 * ```
 */
export interface BadInputReport {
  check: "bad-input";
  cases: number;
  requests: number;
  fuzzLines: number;
  fuzzRejected: number;
  fuzzAccepted: number;
  goodAccepted: number;
  appliedBeforeKill: number;
  appliedAfterRestart: number;
  serverErrors: number;
  pass: boolean;
  failures: string[];
}

const TOKEN = "bad-input-check-token";
const LIMIT = 64 * 1024;
const LINE = 4096;

function good(i: number): string {
  return JSON.stringify({
    id: `good-${i}`,
    features: { [String(i % 50)]: 1, [String(50 + (i % 7))]: 0.5 },
    labels: [`tag-${i % 5}`],
  });
}

/**
 * The bad requests of the check.
 *
 * @example
 * ```ts
 * import { badCases } from "./bad_input.ts";
 * console.log(badCases().every((c) => c.expect >= 400 && c.expect < 500)); // true
 * ```
 */
export function badCases(): BadCase[] {
  const ev = (s: string): BadCase => ({ name: s, method: "POST", path: "/events", expect: 400 });
  const with_ = (c: BadCase, body: string | Uint8Array, mentions?: string): BadCase => ({
    ...c,
    body,
    mentions,
  });
  const bigLine = JSON.stringify({ features: { "1": 1 }, labels: ["x".repeat(LINE)] });
  return [
    with_(ev("malformed JSON"), '{"features": {"1": 1}, "labels": ["a"]', "malformed JSON"),
    with_(ev("not an object"), "[1, 2, 3]", "JSON object"),
    // unknown fields are ignored (real events carry timestamps, user ids): no features is bad
    with_(ev("features missing"), '{"labels": [], "weight": 2}', "'features'"),
    with_(ev("huge line"), bigLine, "longer than"),
    with_(ev("NaN literal"), '{"features": {"1": NaN}, "labels": ["a"]}', "malformed JSON"),
    with_(ev("Infinity literal"), '{"features": {"1": Infinity}, "labels": ["a"]}', "malformed"),
    with_(ev("1e999 overflows"), '{"features": {"1": 1e999}, "labels": ["a"]}', "finite"),
    with_(ev("string value"), '{"features": {"1": "x"}, "labels": ["a"]}', "number"),
    with_(ev("negative feature index"), '{"features": {"-4": 1}, "labels": ["a"]}', "-4"),
    with_(ev("negative label index"), '{"features": {"1": 1}, "labels": [-2]}', "labels[0]"),
    with_(ev("feature index out of range"), '{"features": {"99999999": 1}, "labels": []}', "range"),
    with_(ev("labels missing"), '{"features": {"1": 1}}', "labels"),
    with_(
      ev("label in labels and negatives"),
      '{"features": {}, "labels": ["a"], "negatives": ["a"]}',
      "both",
    ),
    with_(ev("invalid UTF-8"), Uint8Array.of(123, 34, 0xff, 0xfe, 34, 125), "UTF-8"),
    with_(ev("all lines bad"), "{\n[\n", "malformed"),
    {
      name: "missing token",
      method: "POST",
      path: "/events",
      body: good(0),
      noToken: true,
      expect: 401,
      mentions: "token",
    },
    {
      name: "wrong token",
      method: "POST",
      path: "/events",
      body: good(0),
      headers: { authorization: "Bearer nope" },
      expect: 401,
      mentions: "wrong",
    },
    {
      name: "malformed Authorization",
      method: "POST",
      path: "/events",
      body: good(0),
      headers: { authorization: "Basic abc" },
      expect: 401,
      mentions: "Bearer",
    },
    {
      name: "body over the limit",
      method: "POST",
      path: "/events",
      body: (good(0) + "\n").repeat(Math.ceil((LIMIT * 1.5) / (good(0).length + 1))),
      expect: 413,
      mentions: "limit",
    },
    {
      name: "predict: malformed JSON",
      method: "POST",
      path: "/predict",
      body: '{"features": ',
      expect: 400,
      mentions: "malformed",
    },
    {
      name: "predict: bad k",
      method: "POST",
      path: "/predict",
      body: '{"features": {"1": 1}, "k": -1}',
      expect: 400,
      mentions: "'k'",
    },
    {
      name: "predict: NaN-like value",
      method: "POST",
      path: "/predict",
      body: '{"features": {"1": "NaN"}}',
      expect: 400,
      mentions: "finite",
    },
    {
      name: "predict: unknown field",
      method: "POST",
      path: "/predict",
      body: '{"features": {"1": 1}, "x": 1}',
      expect: 400,
      mentions: "unknown field",
    },
    {
      name: "predict: negative index",
      method: "POST",
      path: "/predict",
      body: '{"rows": [{"features": {"1": 1}}, {"features": {"-1": 1}}]}',
      expect: 400,
      mentions: "rows[1]",
    },
    { name: "unknown route", method: "GET", path: "/nope", expect: 404, mentions: "no route" },
    { name: "wrong method", method: "GET", path: "/events", expect: 404, mentions: "no route" },
  ];
}

/** Flips, deletes or inserts a few random characters of a valid line. */
function mutate(line: string, rng: Rng): string {
  const chars = [...line];
  const alphabet = '{}[]":,-.0123456789eEnaNIfity \\x';
  const edits = 1 + rng.nextInt(3);
  for (let e = 0; e < edits; e++) {
    const at = rng.nextInt(chars.length + 1);
    const op = rng.nextInt(3);
    const c = alphabet[rng.nextInt(alphabet.length)];
    if (op === 0 && at < chars.length) chars[at] = c;
    else if (op === 1 && at < chars.length) chars.splice(at, 1);
    else chars.splice(at, 0, c);
  }
  return chars.join("");
}

/** Sends a chunked body larger than the limit without a content-length. */
async function streamedOverLimit(port: number): Promise<number> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    const enc = new TextEncoder();
    await conn.write(enc.encode(
      `POST /events HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${TOKEN}\r\n` +
        "transfer-encoding: chunked\r\n\r\n",
    ));
    const chunk = (good(1) + "\n").repeat(100);
    const piece = enc.encode(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    let sent = 0;
    try {
      while (sent < LIMIT * 2) {
        await conn.write(piece);
        sent += chunk.length;
      }
      await conn.write(enc.encode("0\r\n\r\n"));
    } catch {
      // the server may close the connection once it refused the body
    }
    const buf = new Uint8Array(4096);
    const n = await conn.read(buf);
    if (n === null) return 0;
    return Number(new TextDecoder().decode(buf.subarray(0, n)).split(" ")[1]);
  } finally {
    conn.close();
  }
}

/**
 * Runs the bad-input check (see the module doc) against a fresh `tagstream serve`.
 *
 * @example
 * ```ts
 * import { runBadInputCheck } from "./bad_input.ts";
 * console.log(typeof runBadInputCheck); // "function" (bench/service_bad_input.ts runs it)
 * ```
 */
export async function runBadInputCheck(options: BadInputOptions = {}): Promise<BadInputReport> {
  const rounds = options.rounds ?? 1, fuzz = options.fuzz ?? 0;
  const log = options.log ?? (() => {});
  const rng = new Rng(options.seed ?? 1);
  const stateDir = await Deno.makeTempDir({ prefix: "tagstream-bad-" });
  const args = [
    "--max-body-bytes",
    String(LIMIT),
    "--max-line-bytes",
    String(LINE),
    "--max-features",
    "100000",
    "--batch-size",
    "8",
    "--publish-every",
    "0",
  ];
  const failures: string[] = [];
  let svc: ServiceProcess | undefined;
  let conn: HttpConnection | undefined;
  let requests = 0, goodAccepted = 0, serverErrors = 0, fuzzRejected = 0, fuzzAccepted = 0;
  let nextGood = 0;
  const auth = { authorization: `Bearer ${TOKEN}` };
  try {
    svc = await startService({ stateDir, args, token: TOKEN });
    conn = await HttpConnection.open(svc.port);
    const send = async (c: Omit<BadCase, "expect" | "name">) => {
      requests++;
      const r = await conn!.request(c.method, c.path, c.body, {
        ...(c.noToken ? {} : auth),
        ...(c.headers ?? {}),
      });
      if (r.status >= 500) serverErrors++;
      if (r.headers.connection === "close") {
        conn!.close();
        conn = await HttpConnection.open(svc!.port);
      }
      return r;
    };
    const postGood = async () => {
      const r = await send({ method: "POST", path: "/events", body: good(nextGood) + "\n" });
      if (r.status !== 200 || JSON.parse(r.body).accepted !== 1) {
        failures.push(`a good event after a bad request got ${r.status} ${r.body}`);
      } else {
        goodAccepted++;
      }
      nextGood++;
    };
    await postGood();
    for (let round = 0; round < rounds; round++) {
      for (const c of badCases()) {
        let r: { status: number; body: string };
        try {
          r = await send(c);
        } catch (e) {
          failures.push(`${c.name}: request failed: ${(e as Error).message}`);
          conn.close();
          conn = await HttpConnection.open(svc.port);
          continue;
        }
        let message = "";
        try {
          const j = JSON.parse(r.body);
          message = j.error ?? JSON.stringify(j.rejected ?? "");
        } catch {
          failures.push(`${c.name}: answer is not JSON: ${r.body.slice(0, 80)}`);
        }
        if (r.status !== c.expect) {
          failures.push(`${c.name}: status ${r.status}, expected ${c.expect} (${message})`);
        } else if (c.mentions !== undefined && !message.includes(c.mentions)) {
          failures.push(`${c.name}: message ${JSON.stringify(message)} lacks '${c.mentions}'`);
        }
        await postGood();
      }
      const streamed = await streamedOverLimit(svc.port);
      requests++;
      if (streamed !== 413) failures.push(`streamed body over the limit: status ${streamed}`);
      // A mixed body: good lines are kept, bad ones answered with their line numbers.
      const mixed = [good(nextGood), "{oops", good(nextGood + 1), '{"features": {"-1": 1}}'];
      const r = await send({ method: "POST", path: "/events", body: mixed.join("\n") });
      const j = JSON.parse(r.body);
      const lines = (j.rejected ?? []).map((x: { line: number }) => x.line);
      if (r.status !== 200 || j.accepted !== 2 || JSON.stringify(lines) !== "[2,4]") {
        failures.push(`mixed body: ${r.status} ${r.body}`);
      } else {
        goodAccepted += 2;
      }
      nextGood += 2;
    }
    if (fuzz > 0) {
      log(`fuzzing ${fuzz} mutated lines`);
      for (let i = 0; i < fuzz; i += 50) {
        const body: string[] = [];
        for (let k = 0; k < 50 && i + k < fuzz; k++) body.push(mutate(good(nextGood++), rng));
        const r = await send({ method: "POST", path: "/events", body: body.join("\n") });
        if (r.status !== 200 && r.status !== 400) failures.push(`fuzz: status ${r.status}`);
        else {
          const j = JSON.parse(r.body);
          fuzzAccepted += j.accepted;
          fuzzRejected += j.rejectedCount;
        }
      }
    }
    const m = await getJson(`${svc.url}/metrics`, TOKEN);
    const appliedBeforeKill = (m.events as { applied: number }).applied;
    const expected = goodAccepted + fuzzAccepted;
    if (appliedBeforeKill !== expected) {
      failures.push(`${appliedBeforeKill} events applied, ${expected} were accepted`);
    }
    const health = await fetch(`${svc.url}/health`);
    await health.body?.cancel();
    if (health.status !== 200) failures.push(`/health answered ${health.status}`);
    conn.close();
    conn = undefined;
    // Accepted events survive kill -9 (write-ahead log) and a restart.
    await svc.kill9();
    svc = await startService({ stateDir, args, token: TOKEN });
    const m2 = await getJson(`${svc.url}/metrics`, TOKEN);
    const appliedAfterRestart = (m2.events as { applied: number }).applied;
    if (appliedAfterRestart !== appliedBeforeKill) {
      failures.push(
        `after kill -9 and restart ${appliedAfterRestart} events, before ${appliedBeforeKill}`,
      );
    }
    if (serverErrors > 0) failures.push(`${serverErrors} responses were 5xx`);
    return {
      check: "bad-input",
      cases: badCases().length + 2,
      requests,
      fuzzLines: fuzz,
      fuzzRejected,
      fuzzAccepted,
      goodAccepted,
      appliedBeforeKill,
      appliedAfterRestart,
      serverErrors,
      pass: failures.length === 0,
      failures,
    };
  } finally {
    conn?.close();
    if (svc !== undefined) await svc.stop();
    await Deno.remove(stateDir, { recursive: true }).catch(() => {});
  }
}
