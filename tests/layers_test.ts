/**
 * The folders of `src/` form layers, and imports only go down: a folder imports folders of lower
 * layers (and `sdk/`, the bottom layer, which imports nothing of `src/`), never one of its own
 * layer or above. So there is no import cycle between folders, and nothing reaches up for a
 * helper (progress reporting and random numbers are at the bottom, in `src/progress/` and
 * `src/random/`).
 *
 * The graph is built from the code: every static import or export, dynamic `import(...)` and
 * `new URL("....ts", import.meta.url)` (workers) of every `.ts` file under `src/`, comments
 * excluded. A new folder must be placed in {@linkcode LAYERS} before it can import or be imported.
 *
 * @module
 */
import { assert, assertEquals } from "./helpers.ts";
import { stripComments, tsFiles } from "./source_files.ts";

/**
 * The layers of `src/`, lowest first. A folder may import from any lower layer, nothing from its
 * own layer or above. (`format` sits low because models, data and linalg use its types and
 * writers; `metrics` sits above `models` because evaluation drives estimators: prequential
 * test-then-train takes an `Estimator`.)
 */
const LAYERS: readonly (readonly string[])[] = [
  ["sdk"], // the edge SDK (outside src/; tests/sdk/imports_test.ts keeps it free of src/)
  ["random", "progress", "plot", "optim", "format"], // import nothing of src/
  ["data"],
  ["linalg"],
  ["models"],
  ["metrics"],
  ["prune"],
  ["service"], // the learning service
  ["cli"],
];

/**
 * Imports that break the layering today and are being removed. Each entry lets the folder `from`
 * import the one file `to` (a path under `src/`); the test fails once an entry is no longer
 * used, so that it gets deleted.
 */
const KNOWN_EXCEPTIONS: readonly { from: string; to: string; why: string }[] = [
  // (none: the models ↔ metrics top-k cycle ended when top-k moved to the SDK, issue 18)
];

const ROOT = new URL("../", import.meta.url);
const SRC = new URL("src/", ROOT);
const SDK = new URL("sdk/", ROOT);

/** One import between two folders: `file` (under src/) imports `target` (under src/ or sdk/). */
interface FolderEdge {
  /** Importing folder (first path segment under src/). */
  from: string;
  /** Imported folder (first path segment under src/, or "sdk"). */
  to: string;
  /** Importing file, relative to the repository root. */
  file: string;
  /** Imported file, relative to src/ (or the repository root for sdk/). */
  target: string;
}

/** Relative module specifiers of a file: imports, re-exports, dynamic imports, worker URLs. */
function relativeSpecifiers(src: string): string[] {
  const code = stripComments(src);
  const out: string[] = [];
  const patterns = [
    /\b(?:import|export)\s[^;]*?\bfrom\s*["']([^"']+)["']/g,
    /\bimport\s*["']([^"']+)["']/g,
    /\bimport\s*\(\s*["'`]([^"'`]+)["'`]/g,
    /\bnew\s+URL\(\s*["'`]([^"'`]+\.ts)["'`]\s*,\s*import\.meta\.url/g,
  ];
  for (const re of patterns) {
    for (const m of code.matchAll(re)) if (m[1].startsWith(".")) out.push(m[1]);
  }
  return out;
}

/** The folder of a URL under src/ (its first path segment), "sdk" under sdk/, else undefined. */
function folderOf(url: URL): string | undefined {
  if (url.href.startsWith(SDK.href)) return "sdk";
  if (!url.href.startsWith(SRC.href)) return undefined;
  const rel = url.href.slice(SRC.href.length);
  return rel.includes("/") ? rel.slice(0, rel.indexOf("/")) : undefined;
}

/** The imports of src/ that cross folders. */
async function folderEdges(): Promise<FolderEdge[]> {
  const edges: FolderEdge[] = [];
  for await (const file of tsFiles(SRC)) {
    const from = folderOf(file);
    if (from === undefined) continue;
    for (const s of relativeSpecifiers(await Deno.readTextFile(file))) {
      const target = new URL(s, file);
      const to = folderOf(target);
      if (to === undefined || to === from) continue;
      edges.push({
        from,
        to,
        file: file.href.slice(ROOT.href.length),
        target: target.href.slice((to === "sdk" ? ROOT : SRC).href.length),
      });
    }
  }
  return edges;
}

/** The import cycles between folders (strongly connected components of more than one folder). */
function folderCycles(edges: readonly Pick<FolderEdge, "from" | "to">[]): string[][] {
  const next = new Map<string, Set<string>>();
  for (const e of edges) {
    if (!next.has(e.from)) next.set(e.from, new Set());
    next.get(e.from)!.add(e.to);
  }
  const nodes = [...new Set(edges.flatMap((e) => [e.from, e.to]))].sort();
  // Tarjan's algorithm
  const index = new Map<string, number>(), low = new Map<string, number>();
  const stack: string[] = [], onStack = new Set<string>(), cycles: string[][] = [];
  let counter = 0;
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of [...(next.get(v) ?? [])].sort()) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) cycles.push(scc.sort());
    }
  };
  for (const v of nodes) if (!index.has(v)) visit(v);
  return cycles;
}

/** Why an import breaks the layering (undefined when it goes down), given the layers. */
function layerViolation(
  edge: Pick<FolderEdge, "from" | "to">,
  layers: readonly (readonly string[])[] = LAYERS,
): string | undefined {
  const level = (f: string) => layers.findIndex((l) => l.includes(f));
  const a = level(edge.from), b = level(edge.to);
  for (const [f, l] of [[edge.from, a], [edge.to, b]] as const) {
    if (l < 0) return `src/${f}/ is in no layer: add it to LAYERS in tests/layers_test.ts`;
  }
  if (b < a) return undefined;
  return b === a
    ? `${edge.from} → ${edge.to}: folders of one layer do not import each other`
    : `${edge.from} → ${edge.to}: imports a higher layer`;
}

Deno.test("src/ folders import only lower layers, and no folder cycle exists", async () => {
  const edges = await folderEdges();
  assert(edges.length >= 100, `only ${edges.length} imports between folders found`);
  const used = new Set<string>();
  const allowed = (e: FolderEdge) => {
    const x = KNOWN_EXCEPTIONS.find((k) => k.from === e.from && k.to === e.target);
    if (x !== undefined) used.add(`${x.from} → ${x.to}`);
    return x !== undefined;
  };
  const kept = edges.filter((e) => !allowed(e));
  const problems: string[] = [];
  for (const e of kept) {
    const v = layerViolation(e);
    if (v !== undefined) problems.push(`${e.file} imports src/${e.target}: ${v}`);
  }
  for (const c of folderCycles(kept)) problems.push(`import cycle between ${c.join(", ")}`);
  for (const k of KNOWN_EXCEPTIONS) {
    if (!used.has(`${k.from} → ${k.to}`)) {
      problems.push(
        `the known exception ${k.from} → ${k.to} (${k.why}) is no longer used: delete it`,
      );
    }
  }
  assert(problems.length === 0, problems.join("\n"));
});

/** The imports between files of src/ (type-only ones too: they tie the files' designs). */
async function fileEdges(): Promise<{ from: string; to: string }[]> {
  const edges: { from: string; to: string }[] = [];
  for await (const file of tsFiles(SRC)) {
    const from = file.href.slice(SRC.href.length);
    for (const s of relativeSpecifiers(await Deno.readTextFile(file))) {
      const target = new URL(s, file);
      if (!target.href.startsWith(SRC.href) || target.href === file.href) continue;
      edges.push({ from, to: target.href.slice(SRC.href.length) });
    }
  }
  return edges;
}

Deno.test("no import cycle between files of src/", async () => {
  const edges = await fileEdges();
  assert(edges.length >= 500, `only ${edges.length} imports between files found`);
  const cycles = folderCycles(edges);
  assert(
    cycles.length === 0,
    cycles.map((c) => `import cycle between ${c.join(", ")}`).join("\n"),
  );
});

/**
 * The model folders of `src/models/` (`br/`, `ova/`, ...) are siblings: one never imports
 * another (what two models share lives in a shared module directly under `src/models/`, e.g.
 * label_weights.ts, linear_sparse_file.ts), and a shared module imports no model folder
 * (registry.ts aside: it is the list of the models). Returns the edges that break this.
 */
function modelSiblingImports(edges: readonly { from: string; to: string }[]): string[] {
  const modelOf = (f: string) => /^models\/([^/]+)\//.exec(f)?.[1];
  const out: string[] = [];
  for (const e of edges) {
    if (!e.from.startsWith("models/") || !e.to.startsWith("models/")) continue;
    const a = modelOf(e.from), b = modelOf(e.to);
    if (b === undefined || a === b || e.from === "models/registry.ts") continue;
    out.push(
      a === undefined
        ? `src/${e.from} (shared) imports src/${e.to} of the model ${b}`
        : `src/${e.from} imports src/${e.to}: the model ${a} reaches into the model ${b}`,
    );
  }
  return out;
}

Deno.test("a model of src/models/ imports no other model; the shared modules import none", async () => {
  const edges = await fileEdges();
  assert(edges.some((e) => e.from === "models/ova/estimator.ts"), "no import of ova found");
  const problems = modelSiblingImports(edges);
  assert(problems.length === 0, problems.join("\n"));
  // the check itself
  assertEquals(
    modelSiblingImports([
      { from: "models/ova/estimator.ts", to: "models/br/label_weights.ts" },
      { from: "models/label_weights.ts", to: "models/br/dcd.ts" },
      { from: "models/registry.ts", to: "models/br/mod.ts" },
      { from: "models/br/estimator.ts", to: "models/br/dcd.ts" },
      { from: "models/br/estimator.ts", to: "models/label_weights.ts" },
      { from: "prune/pop.ts", to: "models/br/mod.ts" },
    ]),
    [
      "src/models/ova/estimator.ts imports src/models/br/label_weights.ts: the model ova " +
      "reaches into the model br",
      "src/models/label_weights.ts (shared) imports src/models/br/dcd.ts of the model br",
    ],
  );
});

Deno.test("the layer check finds upward imports, same-layer imports, cycles and new folders", () => {
  const layers = [["random"], ["data"], ["models"], ["cli"]];
  assertEquals(layerViolation({ from: "models", to: "data" }, layers), undefined);
  assertEquals(layerViolation({ from: "cli", to: "random" }, layers), undefined);
  assert(layerViolation({ from: "data", to: "models" }, layers)!.includes("higher layer"));
  assert(layerViolation({ from: "random", to: "data" }, layers)!.includes("higher layer"));
  assert(
    layerViolation({ from: "a", to: "b" }, [["a", "b"]])!.includes("one layer"),
  );
  assert(layerViolation({ from: "cli", to: "newthing" }, layers)!.includes("in no layer"));
  assertEquals(
    folderCycles([
      { from: "data", to: "linalg" },
      { from: "linalg", to: "random" },
      { from: "random", to: "data" },
      { from: "cli", to: "data" },
      { from: "metrics", to: "models" },
      { from: "models", to: "metrics" },
    ]),
    [["data", "linalg", "random"], ["metrics", "models"]],
  );
  assertEquals(folderCycles([{ from: "cli", to: "data" }, { from: "data", to: "random" }]), []);
});

Deno.test("the import scan sees static, type, re-export, dynamic and worker imports, not comments", () => {
  const src = [
    `import { a } from "../data/types.ts";`,
    `import type {\n  B,\n  C,\n} from "../models/estimator.ts";`,
    `export { d } from "./local.ts";`,
    `import "../progress/mod.ts";`,
    `const m = await import("../cli/main.ts");`,
    `new Worker(new URL("../service/pop_worker.ts", import.meta.url), { type: "module" });`,
    `import { Hono } from "hono";`,
    `// import { x } from "../cli/commented.ts";`,
    `/** @example\n * import { y } from "../cli/doc.ts";\n */`,
  ].join("\n");
  assertEquals(relativeSpecifiers(src).sort(), [
    "../cli/main.ts",
    "../data/types.ts",
    "../models/estimator.ts",
    "../progress/mod.ts",
    "../service/pop_worker.ts",
    "./local.ts",
  ]);
});
