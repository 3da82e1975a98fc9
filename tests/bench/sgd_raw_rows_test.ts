/**
 * `deno task sgd-raw-rows`: its flags are checked before anything learns, and on raw count rows its
 * rows report what the SGD step cap does (finite scores at the rows' own scale, the true labels
 * ranked first) for every loss of LEML and BR.
 */
import { benchOptions } from "../../bench/args.ts";
import { SGD_RAW_ROWS, sgdRawRows } from "../../bench/sgd_raw_rows.ts";
import { assert, assertEquals, tempDirWith } from "../cli/helpers.ts";
import { csrBatch } from "../helpers.ts";
import type { Batch } from "../../src/data/types.ts";

/** Rows of raw counts 30–60: label c has words 3c, 3c+1 and 3c+2, plus one shared word. */
function countRows(rows: number, labels: number, offset: number): Batch {
  const xp = [0], xi: number[] = [], xv: number[] = [], yp = [0], yi: number[] = [];
  for (let i = 0; i < rows; i++) {
    const c = (i * 7 + offset) % labels;
    for (const j of [3 * c, 3 * c + 1, 3 * c + 2, 3 * labels]) {
      xi.push(j);
      xv.push(30 + ((i + j) % 4) * 10);
    }
    xp.push(xi.length);
    yi.push(c);
    yp.push(yi.length);
  }
  return csrBatch(3 * labels + 1, labels, xp, xi, xv, yp, yi);
}

Deno.test("sgd-raw-rows: every loss of LEML and BR learns raw count rows: finite scores, true labels first", () => {
  const train = countRows(600, 6, 0), test = countRows(60, 6, 3);
  const rows = sgdRawRows(train, test, ["leml", "br"], 32, 1);
  assertEquals(rows.map((r) => `${r.model} ${r.loss}`), [
    "leml squared",
    "leml logistic",
    "leml sqhinge",
    "br squared-hinge",
    "br logistic",
  ]);
  for (const r of rows) {
    const what = JSON.stringify(r);
    assertEquals(r.rowsAboveUnitNorm, 1, what);
    // an overshooting SGD scores these rows near 1e20 or past float32, and ranks at random
    assert(Number.isFinite(r.maxAbsScore) && (r.maxAbsScore as number) < 1e3, what);
    assert((r["P@1"] as number) >= 90, what);
  }
});

Deno.test("sgd-raw-rows: bad flags and missing files are refused before anything learns", async () => {
  const dir = await tempDirWith("tagstream_sgd_raw_", {
    "tiny.train.txt": "2 2 2\n0 0:40\n1 1:40\n",
    "tiny.test.txt": "1 2 2\n0 0:40\n",
    "trainonly.train.txt": "1 2 2\n0 0:40\n",
  });
  try {
    const d = ["--data-dir", dir];
    const cases: [string[], RegExp][] = [
      [
        [...d, "--datasets", "tiny", "--models", "ova"],
        /^--models: unknown 'ova' \(give leml, br\)$/,
      ],
      [
        [...d, "--datasets", "tiny", "--batch", "0"],
        /^--batch must be an integer in \[1, 1048576\]/,
      ],
      [[...d, "--datasets", "tiny", "--seed", "-1"], /^--seed must be an integer in \[0, /],
      [[...d, "--datasets", "trainonly"], /trainonly\.test\.txt does not exist/],
      [[...d, "--datasets", "tiny,tiny"], /--datasets names 'tiny' twice/],
    ];
    for (const [args, re] of cases) {
      const message = await benchOptions(SGD_RAW_ROWS, args).then(
        () => "accepted",
        (e) => e.message,
      );
      assert(re.test(message), `${args.join(" ")}: ${re} not in: ${message}`);
    }
    const o = await benchOptions(SGD_RAW_ROWS, [...d, "--datasets", "tiny", "--models", "br"]);
    assertEquals([o.datasets, o.models, o.batch, o.seed, o.dataDir], [
      ["tiny"],
      ["br"],
      64,
      0,
      dir,
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
