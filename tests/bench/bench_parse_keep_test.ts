/**
 * `deno task bench --keep FILE` writes the generated XC file to FILE. FILE was only checked to
 * be writable: given one of the data files (`--keep $TAGSTREAM_DATA/bibtex.train.txt`), the
 * bench measured it, then replaced it with the synthetic rows, and the data set was gone.
 */
import { benchOptions } from "../../bench/args.ts";
import { PARSE_BENCH } from "../../bench/parse_bench.ts";
import { assert, tempDirWith } from "../cli/helpers.ts";

Deno.test("deno task bench refuses --keep naming one of the data files it measures", async () => {
  const data = "2 3 2\n0 0:1\n1 1:1 2:0.5\n";
  const dir = await tempDirWith("tagstream_parse_keep_", { "toy.train.txt": data });
  try {
    let err: unknown;
    try {
      await benchOptions(PARSE_BENCH, ["--data-dir", dir, "--keep", `${dir}/toy.train.txt`]);
    } catch (e) {
      err = e;
    }
    assert(err instanceof TypeError, `not refused: ${err}`);
    assert(
      /^--keep .*toy\.train\.txt is the same file as .*toy\.train\.txt/.test(err.message),
      err.message,
    );
    assert((await Deno.readTextFile(`${dir}/toy.train.txt`)) === data, "the data file changed");
    // another file of the directory is fine
    const o = await benchOptions(PARSE_BENCH, ["--data-dir", dir, "--keep", `${dir}/kept.txt`]);
    assert(o.keep === `${dir}/kept.txt`, JSON.stringify(o));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
