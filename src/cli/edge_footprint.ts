/**
 * What a model file costs an edge function that serves it with the SDK: the time `loadModel`
 * takes, the first top-k query, and the memory the loaded model holds (its file bytes, which
 * tensors view, plus the typed arrays the SDK builds at load: float32 copies of f16, i8 and f64
 * tensors, the `knn-embedding` search's suffix norms, the label index's buffers), set
 * against a Cloudflare Worker's limits (128 MB of memory per isolate; 25 MiB a KV value or a
 * static asset).
 *
 * The memory is measured, not estimated: a fresh Deno process (`--v8-flags=--expose-gc`, allowed
 * to read and nothing else) reads the file, collects garbage, loads the model, answers one query,
 * collects garbage again, and reports the growth of its external (ArrayBuffer) and heap memory
 * while the model is still referenced. The file bytes were read before the baseline, so they are
 * added back. A fresh process also means `loadMs` is a cold load, as an edge function's first
 * request sees it.
 *
 * @module
 */
import { loadModel } from "../../sdk/mod.ts";

/** A Cloudflare Worker's memory per isolate (both plans), bytes. */
export const WORKER_MEMORY_BYTES = 128_000_000;

/** The largest Workers KV value or static asset, bytes (25 MiB). */
export const KV_VALUE_BYTES = 25 * 1024 * 1024;

/**
 * The measured cost of serving one model file at the edge ({@linkcode edgeFootprint}).
 *
 * @example
 * ```ts
 * import type { EdgeFootprint } from "./edge_footprint.ts";
 * const f: EdgeFootprint = {
 *   fileBytes: 10, heldBytes: 30, loadMs: 1, firstQueryMs: 0.1,
 *   fitsWorkerMemory: true, fitsKvValue: true,
 * };
 * console.log(f.heldBytes - f.fileBytes); // 20
 * ```
 */
export interface EdgeFootprint {
  /** The file's size. */
  fileBytes: number;
  /** The file plus what the loaded model holds beyond it (external and heap growth). */
  heldBytes: number;
  /** `loadModel(bytes)` in a fresh process, milliseconds. */
  loadMs: number;
  /** The first `predictTopK(x, 5)` after the load, milliseconds. */
  firstQueryMs: number;
  /** `heldBytes` ≤ {@linkcode WORKER_MEMORY_BYTES}. */
  fitsWorkerMemory: boolean;
  /** `fileBytes` ≤ {@linkcode KV_VALUE_BYTES}. */
  fitsKvValue: boolean;
}

/**
 * Measures `path` in a fresh Deno process (see the module doc). The calling process needs
 * permission to run `Deno.execPath()`.
 *
 * @throws {Error} naming the file and the child's message when the file cannot be read or
 *   loaded (e.g. `Cannot read model file (corrupt) …`).
 *
 * @example
 * ```ts ignore
 * import { edgeFootprint } from "./edge_footprint.ts";
 * const f = await edgeFootprint("model.tsm");
 * console.log(f.heldBytes, f.fitsWorkerMemory);
 * ```
 */
export async function edgeFootprint(path: string): Promise<EdgeFootprint> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      // the project's import map (the SDK imports msgpackr by name)
      `--config=${decodeURIComponent(new URL("../../deno.json", import.meta.url).pathname)}`,
      "--v8-flags=--expose-gc",
      "--allow-read",
      new URL(import.meta.url).href,
      path,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout).trim();
  if (!out.success || text === "") {
    throw new Error(`Cannot measure ${path} at the edge: ${childError(out)}`);
  }
  const m = JSON.parse(text) as {
    fileBytes: number;
    growthBytes: number;
    loadMs: number;
    firstQueryMs: number;
  };
  const fileBytes = m.fileBytes, heldBytes = fileBytes + Math.max(0, m.growthBytes);
  return {
    fileBytes,
    heldBytes,
    loadMs: m.loadMs,
    firstQueryMs: m.firstQueryMs,
    fitsWorkerMemory: heldBytes <= WORKER_MEMORY_BYTES,
    fitsKvValue: fileBytes <= KV_VALUE_BYTES,
  };
}

/** The child's own report of its error (`{"error": message}`), else its first stderr line. */
function childError(out: Deno.CommandOutput): string {
  const last = new TextDecoder().decode(out.stdout).trim().split("\n").pop() ?? "";
  try {
    const m = JSON.parse(last) as { error?: unknown };
    if (typeof m.error === "string") return m.error;
  } catch {
    // not the child's report: a crash
  }
  // colour escapes and Deno's "error: Uncaught (in promise)" prefix removed
  // deno-lint-ignore no-control-regex
  const plain = new TextDecoder().decode(out.stderr).replace(/\x1b\[[0-9;]*m/g, "");
  const line = plain.split("\n").map((l) => l.trim()).find((l) => l !== "");
  return line?.replace(/^error: /, "").replace(/^Uncaught (\(in promise\) )?/, "") ??
    `exit code ${out.code}`;
}

// the child: one load and one query between two collections; its errors are reported as
// `{"error": message}` on stdout and exit code 1
if (import.meta.main) {
  try {
    await child(Deno.args[0]);
  } catch (e) {
    console.log(JSON.stringify({ error: e instanceof Error ? e.message : String(e) }));
    Deno.exit(1);
  }
}

async function child(path: string): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error("edge_footprint: run with --v8-flags=--expose-gc");
  const bytes = await Deno.readFile(path);
  const usage = () => {
    gc();
    gc();
    const u = Deno.memoryUsage();
    return u.external + u.heapUsed;
  };
  const before = usage();
  let t = performance.now();
  const model = loadModel(bytes);
  const loadMs = performance.now() - t;
  // a one-feature query (none when the model has no features): it builds whatever a first query
  // builds
  const x = model.numFeatures > 0
    ? { indices: Int32Array.of(0), values: Float32Array.of(1) }
    : { indices: new Int32Array(0), values: new Float32Array(0) };
  t = performance.now();
  model.predictTopK(x, 5);
  const firstQueryMs = performance.now() - t;
  const growthBytes = usage() - before;
  // (the model is read after the second measurement, so it was alive for it)
  console.log(JSON.stringify({
    fileBytes: bytes.length,
    growthBytes,
    loadMs,
    firstQueryMs,
    numLabels: model.numLabels,
  }));
}
