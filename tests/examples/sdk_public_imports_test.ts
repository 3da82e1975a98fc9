// The examples are what a user copies: they reach the SDK only through the entry points its
// package exports (sdk/deno.json), so the same code runs against the published @tagstream/sdk.
// (Both serving examples imported schemaResponse from sdk/predict_protocol.ts, which the package
// does not export.)
import { assert } from "../helpers.ts";

const ROOT = new URL("../../", import.meta.url);

async function* sources(dir: URL): AsyncGenerator<URL> {
  for await (const e of Deno.readDir(dir)) {
    const url = new URL(e.name + (e.isDirectory ? "/" : ""), dir);
    if (e.isDirectory && e.name !== "node_modules") yield* sources(url);
    else if (/\.(ts|mjs|js)$/.test(e.name)) yield url;
  }
}

Deno.test("the examples import the SDK only through the entry points sdk/deno.json exports", async () => {
  const sdkDir = new URL("sdk/", ROOT);
  const manifest = JSON.parse(await Deno.readTextFile(new URL("deno.json", sdkDir)));
  const exported = new Set(
    Object.values(manifest.exports as Record<string, string>).map((p) => new URL(p, sdkDir).href),
  );
  let seen = 0;
  for await (const file of sources(new URL("examples/", ROOT))) {
    const text = await Deno.readTextFile(file);
    // static imports and re-exports (not the @example blocks of doc comments)
    for (const m of text.matchAll(/^(?:import|export)\b[^;]*?from\s+"([^"]+)"/gms)) {
      const target = new URL(m[1], file);
      if (!target.href.startsWith(sdkDir.href)) continue;
      seen++;
      assert(
        exported.has(target.href),
        `${file.pathname.slice(ROOT.pathname.length)} imports ${m[1]}, which @tagstream/sdk ` +
          `does not export (exports: ${Object.keys(manifest.exports).join(", ")})`,
      );
    }
  }
  assert(seen >= 5, `only ${seen} SDK imports found in examples/`);
});
