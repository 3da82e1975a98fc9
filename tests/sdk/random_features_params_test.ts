/**
 * The string params of a `random-features` file (docs/model-format.md): `variant` is "L" or "NL",
 * `absent` "zero" or "missing", `input` "raw" or "projected". `variant` was checked, but an
 * absent or unknown `absent` was served as "zero" and `input` as "raw", silently (a file with
 * `absent: "Missing"` answered as if absent features were zeros); the SDK now refuses such a
 * file as `corrupt`, naming the param and its values, as it refuses a bad `variant`.
 */
import { encodeModelFile } from "../../src/format/model_file.ts";
import type { ModelFileContent } from "../../src/format/types.ts";
import { decodeModelFile } from "../../sdk/internal.ts";
import { loadModel, ModelFormatError } from "../../sdk/mod.ts";
import { assert } from "./helpers.ts";

const FILE = new URL("../fixtures/v1/random-features.tsm", import.meta.url);

/** The `corrupt` message of loading `content`, or "read" when it loads. */
function refusal(content: ModelFileContent): string {
  try {
    loadModel(encodeModelFile(content));
  } catch (e) {
    if (e instanceof ModelFormatError && e.reason === "corrupt") return e.message;
    throw e;
  }
  return "read";
}

Deno.test("random-features: absent, input and variant outside their values are refused", async () => {
  const content = decodeModelFile(await Deno.readFile(FILE));
  const values: Record<string, string[]> = {
    absent: ["zero", "missing"],
    input: ["raw", "projected"],
    variant: ["L", "NL"],
  };
  for (const [name, ok] of Object.entries(values)) {
    const set = (v: unknown) => {
      const params = { ...content.params } as Record<string, unknown>;
      if (v === undefined) delete params[name];
      else params[name] = v;
      return { ...content, params } as ModelFileContent;
    };
    for (const v of ok) {
      // (an "L" file would need a Q of D rows: only the NL fixture's own variant is read)
      if (name !== "variant" || v === content.params.variant) {
        assert(refusal(set(v)) === "read", `${name} ${v}: ${refusal(set(v))}`);
      }
    }
    for (const v of [undefined, "", "Missing", "none", 1, true]) {
      const msg = refusal(set(v));
      assert(
        msg.includes(`random-features model: param "${name}" must be ${ok[0]} or ${ok[1]}`),
        `${name} ${JSON.stringify(v)}: ${msg}`,
      );
    }
  }
});
