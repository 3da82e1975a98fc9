/**
 * `repro sleec-ablation` checks its flags and every variant's configuration before the data is
 * read and the first fit:
 *
 * - a `--learners` the trainer refuses names the flag (it was refused as `sleec: option
 *   numLearners`, after the reference variant's fit);
 * - an `--extra` variant whose config the trainer refuses names the variant (refused at its turn);
 * - an `--extra` variant may be named in `--variants` (it was an "unknown variant");
 * - `--euclidean` is true or false (another word was read as false);
 * - `--learners` with only `reference`, which ignores it, is refused (it was ignored);
 * - `--valid-fraction` outside (0, 1) names the flag (`lastRowsSplit: fraction`); so does
 *   `repro sleec-pool`'s.
 */
import { assert, assertThrowsMsg } from "../helpers.ts";
import { Progress } from "../../src/progress/mod.ts";
import sleecAblation from "../../bench/repro/experiments/sleec-ablation.ts";
import sleecPool from "../../bench/repro/experiments/sleec-pool.ts";
import { plantedTrainFolder, RecordingProgress, reproContext } from "./repro_context.ts";

const context = reproContext;

Deno.test("repro sleec-ablation refuses bad flags and variant configs before any fit", async () => {
  const dir = await plantedTrainFolder("tagstream_sleec_ablation_flags_", 5, 60);
  try {
    const bad = JSON.stringify({ tiny: { what: "rank 0", config: { rank: 0 } } });
    const cases = [
      [
        { variants: "rank50", learners: "0" },
        RangeError,
        "--learners 0: sleec: option numLearners",
      ],
      [
        { variants: "reference", extra: bad },
        RangeError,
        "sleec-ablation: variant 'tiny': sleec: option rank",
      ],
      [
        { variants: "reference", euclidean: "maybe" },
        TypeError,
        "--euclidean must be true or false",
      ],
      [
        { variants: "reference", learners: "2" },
        TypeError,
        "--learners sets the learners of every variant but reference",
      ],
      [
        { variants: "reference", "valid-fraction": "0" },
        RangeError,
        "sleec-ablation: --valid-fraction must be in (0, 1), got 0",
      ],
    ] as const;
    for (const [flags, cls, text] of cases) {
      const progress = new RecordingProgress();
      const log = console.log;
      const printed: unknown[] = [];
      console.log = (...a: unknown[]) => printed.push(a);
      try {
        await assertThrowsMsg(() => sleecAblation(context(dir, flags, progress)), cls, text);
      } finally {
        console.log = log;
      }
      assert(progress.started.length === 0, `${text}: work started: ${progress.started}`);
      assert(printed.length === 0, `${text}: a variant's row was printed first`);
    }
    await assertThrowsMsg(
      () => sleecPool(context(dir, { members: "raw", "valid-fraction": "1" }, new Progress())),
      RangeError,
      "sleec-pool: --valid-fraction must be in (0, 1), got 1",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("repro sleec-ablation runs an --extra variant named in --variants", async () => {
  const dir = await plantedTrainFolder("tagstream_sleec_ablation_extra_", 6, 60);
  const log = console.log;
  console.log = () => {};
  try {
    const extra = JSON.stringify({
      small: { what: "rank 4", config: { rank: 4, svpNeighbours: 10 } },
    });
    const r = await sleecAblation(
      context(dir, { variants: "small", extra, "k-grid": "5" }, new Progress({ silent: true })),
    );
    const rows = r.extra?.rows as { variant: string }[];
    assert(rows.map((x) => x.variant).join() === "reference,small", JSON.stringify(rows));
  } finally {
    console.log = log;
    await Deno.remove(dir, { recursive: true });
  }
});
