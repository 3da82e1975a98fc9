/**
 * The SDK depends only on Web APIs and `msgpackr/unpack` (the decoder alone): every import under
 * sdk/ is either a relative path that stays inside sdk/ or `msgpackr/unpack`, and no SDK code
 * (comments and doc examples aside) touches `Deno`, `process`, `require` or `node:` modules.
 */
import { assert } from "./helpers.ts";

const SDK = new URL("../../sdk/", import.meta.url);
const ALLOWED_PACKAGES = new Set(["msgpackr/unpack"]);

async function* tsFiles(dir: URL): AsyncGenerator<URL> {
  for await (const e of Deno.readDir(dir)) {
    if (e.isDirectory) yield* tsFiles(new URL(`${e.name}/`, dir));
    else if (e.name.endsWith(".ts")) yield new URL(e.name, dir);
  }
}

/** Code without comments (so doc examples may use Deno APIs). */
function stripComments(src: string): string {
  return src.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
}

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
