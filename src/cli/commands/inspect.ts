/**
 * `tagstream inspect`: a model file's header (format version, kind, sizes, feature space,
 * preprocessing, parameters), its tensors with their sizes, and its metadata and metrics; or a
 * state directory's checkpoint (counts, position, prequential precision, published model).
 *
 * @module
 */
import { decodeModelFile } from "../../../sdk/internal.ts";
import { readFileIfExists } from "../../service/checkpoint.ts";
import { listSegments } from "../../service/wal.ts";
import { edgeFootprint } from "../edge_footprint.ts";
import { type Command, intFlag, parseFlags, stringFlag } from "./args.ts";
import { checkStateDir, osReason, statOrUndefined } from "./path_checks.ts";
import { namedStateDirError, openStateChain, replayLog } from "./state.ts";

const USAGE = `tagstream inspect FILE.tsm [--json] [--labels N] [--edge]
tagstream inspect - [--json] [--labels N]       (the model file on stdin)
tagstream inspect --state-dir DIR [--json]

Prints a model file's header (format version, kind, numbers of features and labels, feature
space with a text model's tokenizer settings, preprocessing, parameters), its tensors (dtype,
shape, bytes) and its metadata (training metrics, model version); or a state directory's
checkpoint and published model (the counts include the events of the write-ahead log after the
checkpoint, replayed in memory as a restart replays them: events.fromLog; nothing is written),
with the model's note when it has one (as train's summary: e.g. knn's k above the rows learnt).

  --json        one JSON object instead of text
  --labels N    label names shown (default 10)
  --edge        also measure what serving it costs an edge function: the SDK's cold load time,
                its first query, and the memory the loaded model holds, against a Cloudflare
                Worker's 128 MB and a KV value's 25 MiB (a fresh Deno process measures it)`;

/**
 * Reads a model file named on the command line (`-`: all of stdin), with errors that name the
 * flag and the path (`--model-file nope.tsm: no such file`; `flag` "" names the path alone).
 *
 * @throws {TypeError} when the path does not exist, is a directory or cannot be read, when stdin
 * is empty, or when the file is gzip-compressed (decompress it first)
 *
 * @example
 * ```ts
 * import { readModelArg } from "./inspect.ts";
 * const dir = await Deno.makeTempDir();
 * await readModelArg("--model-file", `${dir}/nope.tsm`).catch((e) => console.log(e.message)); // --model-file .../nope.tsm: no such file
 * await readModelArg("--model", dir).catch((e) => console.log(e.message)); // --model ...: is a directory, not a model file
 * await Deno.remove(dir);
 * ```
 */
export async function readModelArg(flag: string, path: string): Promise<Uint8Array> {
  const what = flag === "" ? path : `${flag} ${path}`;
  let bytes: Uint8Array;
  try {
    if (path === "-") {
      bytes = new Uint8Array(await new Response(Deno.stdin.readable).arrayBuffer());
      if (bytes.length === 0) throw new TypeError(`${what}: stdin is empty, no model file on it`);
    } else bytes = await Deno.readFile(path);
  } catch (e) {
    if (e instanceof TypeError) throw e;
    if (e instanceof Deno.errors.NotFound) throw new TypeError(`${what}: no such file`);
    if (e instanceof Deno.errors.IsADirectory) {
      // inspect, eval and prune all read a serve/train state directory with --state-dir (a hint
      // only: a stat that fails leaves it out, the message stays this one)
      const state = (await statOrUndefined(`${path}/checkpoint.msgpack`).catch(() => undefined))
        ?.isFile === true;
      throw new TypeError(
        `${what}: is a directory, not a model file` +
          (state ? ` (a state directory: give --state-dir ${path})` : ""),
      );
    }
    throw new TypeError(`${what}: cannot be read (${osReason(e)})`);
  }
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    // model files are read as they are (the SDK gets the bytes of the file)
    throw new TypeError(
      `${what}: is gzip-compressed, not a model file: decompress it first (gunzip)`,
    );
  }
  return bytes;
}

/**
 * Names `path` in an error found while reading it as a model file: the SDK's `Cannot read model
 * file (reason) at byte N: …` becomes `Cannot read model file PATH (reason) at byte N: …`, any
 * other message gets `PATH: ` in front (`-`, stdin, is named `(stdin)`). Returns `e` itself (same
 * class and fields), to rethrow.
 *
 * @example
 * ```ts
 * import { namedModelError } from "./inspect.ts";
 * import { loadModel } from "../../../sdk/mod.ts";
 * try {
 *   loadModel(new TextEncoder().encode("not a model"));
 * } catch (e) {
 *   console.log((namedModelError(e, "x.tsm") as Error).message); // Cannot read model file x.tsm (bad-magic) at byte 0: ...
 * }
 * ```
 */
export function namedModelError(e: unknown, path: string): unknown {
  const prefix = "Cannot read model file";
  const name = path === "-" ? "(stdin)" : path;
  // already named (a message that merely contains the path's letters is not)
  if (
    !(e instanceof Error) || e.message.startsWith(`${prefix} ${name}`) ||
    e.message.startsWith(`${name}: `)
  ) {
    return e;
  }
  e.message = e.message.startsWith(prefix)
    ? `${prefix} ${name}${e.message.slice(prefix.length)}`
    : `${name}: ${e.message}`;
  return e;
}

/**
 * Checks a model file as the SDK loads it (what `eval --model-file` and a server do): a file
 * the SDK rejects (a label index out of range, an unknown kind, …) throws the SDK's error, which
 * names `path`.
 *
 * @example
 * ```ts
 * import { checkModelFile } from "./inspect.ts";
 * await checkModelFile(new Uint8Array(4), "zero.tsm").catch((e) => console.log(e.message)); // Cannot read model file zero.tsm (...
 * ```
 */
export async function checkModelFile(bytes: Uint8Array, path: string): Promise<void> {
  // Loaded on demand, as in `eval`: the SDK's full validation
  const { loadModel } = await import("../../../sdk/mod.ts");
  try {
    loadModel(bytes);
  } catch (e) {
    throw namedModelError(e, path);
  }
}

/**
 * A model file's description (what `inspect --json` prints).
 *
 * @example
 * ```ts
 * import { encodeModelFile } from "../../format/model_file.ts";
 * import { describeModelFile } from "./inspect.ts";
 * const bytes = encodeModelFile({
 *   kind: "linear-lowrank", numFeatures: 2, numLabels: 1, params: { rank: 1 },
 *   tensors: {
 *     W: { dtype: "f32", shape: [2, 1], data: new Float32Array(2) },
 *     H: { dtype: "f32", shape: [1, 1], data: new Float32Array(1) },
 *   },
 * });
 * const d = describeModelFile(bytes);
 * console.log(d.kind, d.numFeatures, (d.tensors as { name: string }[])[0].name); // "linear-lowrank" 2 "W"
 * ```
 */
export function describeModelFile(bytes: Uint8Array, maxLabels = 10): Record<string, unknown> {
  const c = decodeModelFile(bytes);
  const tensors = Object.entries(c.tensors).map(([name, t]) => ({
    name,
    dtype: t.dtype,
    shape: t.shape,
    bytes: t.data.byteLength,
  }));
  const fs = c.featureSpace;
  // the tokenizer a model trained on text carries (format version 3)
  const text = fs && fs.type !== "index" && fs.text ? `, text ${JSON.stringify(fs.text)}` : "";
  return {
    bytes: bytes.length,
    formatVersion: c.formatVersion,
    kind: c.kind,
    numFeatures: c.numFeatures,
    numLabels: c.numLabels,
    featureSpace: fs === undefined
      ? "index"
      : fs.type === "vocabulary"
      ? `vocabulary (${fs.names.length} names)${text}`
      : fs.type === "hashing"
      ? `hashing (dim ${fs.dim}, seed ${fs.seed}${fs.signed ? ", signed" : ""})${text}`
      : fs.type,
    preprocess: c.preprocess ?? null,
    params: c.params,
    tensors,
    tensorBytes: tensors.reduce((a, t) => a + t.bytes, 0),
    labelNames: c.labelNames?.slice(0, maxLabels) ?? null,
    meta: c.meta ?? null,
  };
}

function text(d: Record<string, unknown>, indent = ""): string {
  const lines: string[] = [];
  for (const [k, v] of Object.entries(d)) {
    if (Array.isArray(v) && v.length > 0 && typeof v[0] === "object" && v[0] !== null) {
      lines.push(`${indent}${k}:`);
      for (const item of v) {
        const t = item as Record<string, unknown>;
        lines.push(
          `${indent}  ${
            "name" in t
              ? `${String(t.name).padEnd(8)} ${String(t.dtype).padEnd(4)} [${
                (t.shape as number[]).join(", ")
              }] ${t.bytes} bytes`
              : JSON.stringify(t)
          }`,
        );
      }
    } else if (v !== null && typeof v === "object" && !Array.isArray(v)) {
      lines.push(`${indent}${k}:`);
      lines.push(text(v as Record<string, unknown>, indent + "  "));
    } else {
      lines.push(`${indent}${k}: ${Array.isArray(v) ? v.join(", ") : String(v)}`);
    }
  }
  return lines.join("\n");
}

/**
 * A state directory's description (checkpoint, write-ahead log, published model). The counts are
 * those a restart resumes with: the log's records after the checkpoint are replayed in memory
 * (`events.fromLog`; damage a start would refuse is listed in `walDamage`). Nothing is written.
 * `note` is what the model says its user should know, when it says something (the `note` of
 * `tagstream train`'s summary, e.g. knn's `k` above the rows it learnt).
 *
 * @example
 * ```ts
 * import { describeState } from "./inspect.ts";
 * console.log(typeof describeState); // "function"
 * ```
 */
export async function describeState(dir: string): Promise<Record<string, unknown>> {
  // the checkpoint and its incremental checkpoints, as a restart would see them (read from the
  // learner: a whole new checkpoint would copy the model)
  const { learner: l, deltas, savedAt, base } = await openStateChain(dir);
  // and the write-ahead log after them, replayed in memory as a restart replays it (the counts
  // were the checkpoint's alone, missing what a killed or running server logged since)
  const log = await replayLog(dir, l), replayed = log.replayed;
  const w = l.window;
  const fin = (v: number) => (Number.isFinite(v) ? Math.round(v * 100) / 100 : null);
  // what the model says its user should know (e.g. knn's k above the rows it learnt), under
  // the name train's summary gives it
  const note = l.estimator.trainingNote?.();
  const out: Record<string, unknown> = {
    stateDir: dir,
    model: l.estimator.kind,
    ...(note !== undefined ? { note } : {}),
    savedAt,
    events: {
      applied: l.applied,
      learned: l.learned,
      queued: l.pendingCount,
      rejected: l.rejected,
      // of which replayed from the write-ahead log (not in a checkpoint yet)
      fromLog: replayed,
    },
    labels: l.parser.labels.names.length,
    featureNames: l.parser.features.names.length,
    featureKeys: base.options.limits.hashing
      ? { hashing: base.options.limits.hashing }
      : base.options.limits.featureKeys ?? "index",
    batchSize: l.batchSize,
    prequential: {
      window: w.filled,
      "P@1": fin(w.precisionAt1),
      "P@5": fin(w.precisionAt5),
      cumulativeP1: fin(w.cumulativeP1),
      cumulativeP5: fin(w.cumulativeP5),
    },
    position: l.position,
    modelVersion: l.modelVersion,
    incrementalCheckpoints: deltas,
    ...(log.dropped.length > 0
      ? {
        // what a start refuses ('serve --repair' drops it)
        walDamage: log.dropped.map((d) =>
          `wal/${d.file} at byte ${d.offset}: ${d.reason} (${d.records} record(s))`
        ),
      }
      : {}),
    walSegments: (await listSegments(`${dir}/wal`).catch((e) => {
      throw namedStateDirError(e, dir);
    })).length,
  };
  const model = await readFileIfExists(`${dir}/model.tsm`).catch((e) => {
    throw namedStateDirError(e, dir);
  });
  if (model !== undefined) {
    let d: Record<string, unknown>;
    try {
      d = describeModelFile(model, 0);
    } catch (e) {
      throw namedModelError(e, `${dir}/model.tsm`);
    }
    out.published = { bytes: d.bytes, kind: d.kind, meta: d.meta };
  }
  return out;
}

/** The `inspect` command. */
export const inspectCommand: Command = {
  name: "inspect",
  summary: "print a model file's header, sizes and metrics (or a state directory's checkpoint)",
  usage: USAGE,
  async run(args) {
    const f = parseFlags("inspect", args, {
      "state-dir": "string",
      json: "boolean",
      labels: "string",
      edge: "boolean",
    }, { maxPositionals: 1 });
    if (f.values.help) {
      console.log(USAGE);
      return 0;
    }
    const dir = stringFlag(f, "state-dir");
    let d: Record<string, unknown>;
    if (dir !== undefined) {
      // what a state directory's description would silently ignore
      if (f.positionals.length > 0) {
        throw new TypeError(
          `tagstream inspect: give a model file or --state-dir, not both (got '${
            f.positionals[0]
          }' and --state-dir ${dir})`,
        );
      }
      if (f.values.edge) {
        throw new TypeError("tagstream inspect: --edge measures a model file, not a --state-dir");
      }
      if (f.values.labels !== undefined) {
        throw new TypeError(
          "tagstream inspect: --labels lists a model file's label names, not a --state-dir's",
        );
      }
      await checkStateDir(dir);
      d = await describeState(dir);
    } else {
      const path = f.positionals[0];
      if (path === undefined) {
        throw new TypeError("tagstream inspect: give a model file or --state-dir");
      }
      if (path === "") throw new TypeError("tagstream inspect: the model file path is empty");
      // flags first: a bad value is reported before the file is read
      const maxLabels = intFlag(f, "labels", 10, 0);
      if (path === "-" && f.values.edge) {
        throw new TypeError(
          "tagstream inspect: --edge loads the model file in a fresh process: give a file, not -",
        );
      }
      // a pipe (`<(zcat m.tsm.gz)`, a FIFO) is read once, here: the fresh process would find it
      // empty, or wait for a writer for ever
      const info = f.values.edge ? await statOrUndefined(path).catch(() => undefined) : undefined;
      if (info !== undefined && !info.isFile && !info.isDirectory) {
        throw new TypeError(
          `tagstream inspect: --edge loads the model file in a fresh process: ${path} is not a ` +
            "regular file (a pipe?): save the model to a file and give its path",
        );
      }
      const bytes = await readModelArg("", path);
      try {
        d = { file: path, ...describeModelFile(bytes, maxLabels) };
      } catch (e) {
        throw namedModelError(e, path);
      }
      // what the frame decoder accepts, the SDK may still reject (as eval and serve would)
      await checkModelFile(bytes, path);
      if (f.values.edge) {
        const e = await edgeFootprint(path);
        d.edge = {
          ...e,
          loadMs: Math.round(e.loadMs * 10) / 10,
          firstQueryMs: Math.round(e.firstQueryMs * 100) / 100,
        };
      }
    }
    console.log(f.values.json ? JSON.stringify(d) : text(d));
    return 0;
  },
};
