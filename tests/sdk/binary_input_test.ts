// `{indices}` without `values` is a binary row (README, "Serving models at the edge"): it type-checks
// as a ModelInput (it used to fail `deno check` with TS2322 though it ran) and answers like the
// same row with every value 1.
import { type BinaryInput, loadModel, type ModelInput } from "../../sdk/mod.ts";
import { assertEquals } from "../helpers.ts";

const FIXTURE = new URL("../fixtures/v1/linear-sparse.tsm", import.meta.url);

Deno.test("a binary row {indices} answers like {indices, values: 1 each}", async () => {
  const model = loadModel(await Deno.readFile(FIXTURE));
  const binary: BinaryInput = { indices: [1, 3] };
  const rows: ModelInput[] = [binary, { indices: [1, 3], values: [1, 1] }];
  const [a, b] = rows.map((x) => model.predictTopK(x, 3));
  assertEquals([...a.labels], [...b.labels]);
  assertEquals([...a.scores], [...b.scores]);
  assertEquals(a.labels.length > 0, true);
});
