/**
 * The import direction between the SDK and the trainer. sdk → src: none; the SDK depends only on
 * Web APIs and `msgpackr/unpack` (the decoder alone): every import under sdk/ is either a relative
 * path that stays inside sdk/ or `msgpackr/unpack`, and no SDK code (comments and doc examples
 * aside) touches `Deno`, `process`, `require` or `node:` modules. src → sdk: the trainer (every
 * file under src/, and mod.ts) reaches the SDK only through its public entry `sdk/mod.ts` or its
 * one internal entry `sdk/internal.ts`, which no SDK module imports (so it never reaches an edge
 * bundle).
 */
import { assert } from "./helpers.ts";
import { stripComments, tsFiles } from "../source_files.ts";

const ROOT = new URL("../../", import.meta.url);
const SDK = new URL("sdk/", ROOT);
/** The SDK modules the trainer may import. */
const TRAINER_ENTRIES = new Set(
  ["sdk/mod.ts", "sdk/internal.ts"].map((f) => new URL(f, ROOT).href),
);
const ALLOWED_PACKAGES = new Set(["msgpackr/unpack"]);

/** Import/export specifiers of a module, static and dynamic. */
export function specifiers(src: string): string[] {
  const code = stripComments(src);
  const out: string[] = [];
  const patterns = [
    /\b(?:import|export)\s[^;]*?\bfrom\s*["']([^"']+)["']/g,
    /\bimport\s*["']([^"']+)["']/g,
    /\bimport\s*\(\s*["'`]([^"'`]+)["'`]/g,
  ];
  for (const re of patterns) for (const m of code.matchAll(re)) out.push(m[1]);
  return out;
}

/** Problems with one SDK file's imports and APIs (empty when it is clean). */
export function violations(file: URL, src: string): string[] {
  const bad: string[] = [];
  for (const s of specifiers(src)) {
    if (s.startsWith("./") || s.startsWith("../")) {
      const target = new URL(s, file).href;
      if (!target.startsWith(SDK.href)) bad.push(`imports ${s}, outside sdk/`);
    } else if (!ALLOWED_PACKAGES.has(s)) {
      bad.push(`imports ${s} (only Web APIs and msgpackr/unpack are allowed)`);
    }
  }
  const code = stripComments(src);
  for (const api of [/\bDeno\./, /\bprocess\./, /\brequire\(/, /["']node:/, /\bBuffer\b/]) {
    if (api.test(code)) bad.push(`uses ${api.source.replace(/\\b|\\/g, "")}`);
  }
  return bad;
}

Deno.test("sdk/ imports only sdk/ files and msgpackr/unpack, and no runtime-specific API", async () => {
  const problems: string[] = [];
  let files = 0, imports = 0;
  for await (const file of tsFiles(SDK)) {
    const src = await Deno.readTextFile(file);
    files++;
    imports += specifiers(src).length;
    for (const v of violations(file, src)) problems.push(`${file.pathname}: ${v}`);
  }
  assert(files >= 10 && imports >= 15, `scanned only ${files} files / ${imports} imports`);
  assert(problems.length === 0, problems.join("\n"));
});

Deno.test("the import check catches trainer imports, other packages and runtime APIs", () => {
  const file = new URL("kinds/x.ts", SDK);
  const cases: [string, string][] = [
    [`import { a } from "../../src/format/model_file.ts";`, "outside sdk/"],
    [`export { b } from "../../src/models/br/mod.ts";`, "outside sdk/"],
    [`import { unpack } from "msgpackr";`, "imports msgpackr "],
    [`import { Packr } from "msgpackr/pack";`, "imports msgpackr/pack"],
    [`import x from "hono";`, "imports hono"],
    [`const m = await import("node:fs");`, "imports node:fs"],
    [`const kv = await Deno.openKv();`, "uses Deno."],
    [`const b = Buffer.from([]);`, "uses Buffer"],
  ];
  for (const [src, expected] of cases) {
    const v = violations(file, src).join("; ");
    assert(v.includes(expected), `${src} → '${v}'`);
  }
  const clean = `import { topK } from "../topk.ts";\nimport { Unpackr } from "msgpackr/unpack";\n` +
    `/** Example: \`await Deno.readFile("x")\` */\nexport const url = "https://x.y/z"; // ok`;
  assert(violations(file, clean).length === 0, violations(file, clean).join());
});

/** Problems with one trainer file's imports of the SDK (empty when it only uses the entries). */
export function trainerViolations(file: URL, src: string): string[] {
  const bad: string[] = [];
  for (const s of specifiers(src)) {
    if (!s.startsWith("./") && !s.startsWith("../")) continue;
    const target = new URL(s, file).href;
    if (target.startsWith(SDK.href) && !TRAINER_ENTRIES.has(target)) {
      bad.push(`imports ${s}: use sdk/mod.ts or sdk/internal.ts`);
    }
  }
  return bad;
}

Deno.test("src/ and mod.ts reach the SDK only through sdk/mod.ts or sdk/internal.ts", async () => {
  const problems: string[] = [];
  let files = 0, sdkImports = 0;
  const check = async (file: URL) => {
    const src = await Deno.readTextFile(file);
    files++;
    sdkImports += specifiers(src).filter((s) => new URL(s, file).href.startsWith(SDK.href)).length;
    for (const v of trainerViolations(file, src)) problems.push(`${file.pathname}: ${v}`);
  };
  for await (const file of tsFiles(new URL("src/", ROOT))) await check(file);
  await check(new URL("mod.ts", ROOT));
  assert(files >= 100 && sdkImports >= 20, `scanned ${files} files / ${sdkImports} SDK imports`);
  assert(problems.length === 0, problems.join("\n"));
});

Deno.test("no SDK module imports sdk/internal.ts (the trainer's entry stays out of edge bundles)", async () => {
  const internal = new URL("internal.ts", SDK).href, problems: string[] = [];
  for await (const file of tsFiles(SDK)) {
    const src = await Deno.readTextFile(file);
    for (const s of specifiers(src)) {
      if (new URL(s, file).href === internal) problems.push(`${file.pathname} imports ${s}`);
    }
  }
  assert(problems.length === 0, problems.join("\n"));
});

Deno.test("the trainer import check catches SDK internals and lets the two entries through", () => {
  const file = new URL("src/models/x/y.ts", ROOT);
  const cases: [string, string][] = [
    [`import { pushTop } from "../../../sdk/topk.ts";`, "sdk/topk.ts"],
    [`import type { SdkTensor } from "../../../sdk/kinds/types.ts";`, "sdk/kinds/types.ts"],
    [`export { crc32 } from "../../../sdk/crc32.ts";`, "sdk/crc32.ts"],
    [`const m = await import("../../../sdk/decode.ts");`, "sdk/decode.ts"],
  ];
  for (const [src, expected] of cases) {
    const v = trainerViolations(file, src).join("; ");
    assert(
      v.includes(expected) && v.includes("use sdk/mod.ts or sdk/internal.ts"),
      `${src} → '${v}'`,
    );
  }
  const clean = `import { loadModel } from "../../../sdk/mod.ts";\n` +
    `import { topKDense } from "../../../sdk/internal.ts";\n` +
    `import { x } from "../estimator.ts";\n/** import { y } from "../../../sdk/topk.ts"; */`;
  assert(trainerViolations(file, clean).length === 0, trainerViolations(file, clean).join());
});
