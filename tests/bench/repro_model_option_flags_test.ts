/**
 * Repro flags that a model checks as one of its options: the refusal names the flag the user
 * typed, and comes before any work.
 *
 * - `repro sleec`, `sleec-stream` and `leml-stream`: a flag value the model refuses (`--learners
 *   0`, `--neighbours 0`, `--lr 1e9`) is an error starting with the flag and its value; it named
 *   only the option (`sleec: option numLearners ...`), and a bad entry of `--neighbours-grid`
 *   was found only at its turn, after the fits of the entries before it.
 * - `repro leml-stream --replay-steps 1` replays nothing: `--replay` (but with `--update local`,
 *   whose refresh keeps `--replay` rows) and `--replay-ratio` are refused; they were ignored and
 *   `--replay-ratio` printed as if used.
 * - `repro sleec-curve`: `--learners` past the trainer's limit, and a `--members` spec whose rank
 *   cannot be the model's (`pca` on fewer features than `--rank`), were refused after the
 *   selection and the ensemble's training.
 * - `repro pop --epsilon`, `--lambda`, `--delta` out of POP's range were refused by the search,
 *   after the BR fit on the fit split; `--val-fraction` named popBr's `validationFraction`.
 * - `repro leml --rank` above the number of labels is refused: W·Hᵀ has rank at most L, and
 *   `--rank 1000` on the 6 labels of emotions ran for minutes.
 */
import { assert, assertThrowsMsg } from "../helpers.ts";
import { Progress } from "../../src/progress/mod.ts";
import leml from "../../bench/repro/experiments/leml.ts";
import pop from "../../bench/repro/experiments/pop.ts";
import lemlStream from "../../bench/repro/experiments/leml-stream.ts";
import sleec from "../../bench/repro/experiments/sleec.ts";
import sleecStream from "../../bench/repro/experiments/sleec-stream.ts";
import sleecCurve from "../../bench/repro/experiments/sleec-curve.ts";
import {
  inFolder,
  plantedTrainTestFolder,
  RecordingProgress,
  reproContext,
  TINY_CURVE_FLAGS,
  TINY_LEML_STREAM_FLAGS,
} from "./repro_context.ts";

/** A folder with `toy.train.txt` (40 planted rows, 4 labels) and `toy.test.txt` (10 rows). */
const trainTestFolder = () => plantedTrainTestFolder("tagstream_repro_options_", 3, 50, 40);

const context = reproContext;

/**
 * Asserts that `run`, reporting to a new {@linkcode RecordingProgress}, throws a RangeError whose
 * message holds `part` and starts with `start`, before any work started.
 */
async function assertRefusedFirst(
  run: (p: Progress) => Promise<unknown>,
  part: string,
  start: string,
): Promise<void> {
  const progress = new RecordingProgress();
  const e = await assertThrowsMsg(() => run(progress), RangeError, part);
  assert(e.message.startsWith(start), `expected '${start}...', got ${e.message}`);
  assert(progress.started.length === 0, `${start}: work started: ${progress.started}`);
}

Deno.test("repro sleec, sleec-stream and leml-stream name the flag of an option the model refuses, before any work", () =>
  inFolder(trainTestFolder(), async (dir) => {
    const cases: [(p: Progress) => Promise<unknown>, string][] = [
      [(p) => sleec(context(dir, { learners: "0" }, p)), "--learners 0: "],
      [(p) => sleec(context(dir, { rank: "99999", k: "5" }, p)), "--rank 99999: "],
      // the grid's second entry was refused at its turn, after the first one's fits
      [
        (p) => sleec(context(dir, { "neighbours-grid": "5,2000000", k: "5" }, p)),
        "--neighbours-grid 5,2000000: ",
      ],
      [(p) => sleecStream(context(dir, { neighbours: "0", k: "5" }, p)), "--neighbours 0: "],
      [(p) => sleecStream(context(dir, { reservoir: "0", k: "5" }, p)), "--reservoir 0: "],
      [(p) => lemlStream(context(dir, { lr: "1e9" }, p)), "--lr 1e9: "],
      [(p) => lemlStream(context(dir, { "replay-steps": "100000" }, p)), "--replay-steps 100000: "],
    ];
    for (const [run, start] of cases) await assertRefusedFirst(run, "option ", start);
  }));

Deno.test("repro sleec-stream refuses a --batch that is not a positive integer, naming it", () =>
  inFolder(trainTestFolder(), async (dir) => {
    for (const batch of ["0", "1.5"]) {
      // it was refused as "batchesOf: option batchSize", after the model was built
      await assertThrowsMsg(
        () => sleecStream(context(dir, { batch, k: "5" }, new RecordingProgress())),
        TypeError,
        `--batch must be a positive integer, got '${batch}'`,
      );
    }
  }));

Deno.test("repro leml-stream --replay-steps 1 refuses the replay flags it would ignore", () =>
  inFolder(trainTestFolder(), async (dir) => {
    const fixed = TINY_LEML_STREAM_FLAGS;
    for (
      const [flags, flag] of [[{ replay: "10" }, "--replay"], [
        { "replay-ratio": "3" },
        "--replay-ratio",
      ], [
        { update: "local", "replay-ratio": "3" },
        "--replay-ratio",
      ]] as const
    ) {
      await assertThrowsMsg(
        () => lemlStream(context(dir, { ...fixed, ...flags }, new RecordingProgress())),
        TypeError,
        `${flag} does not apply with --replay-steps 1`,
      );
    }
    // --update local keeps --replay rows for its refresh: the flag is read
    const r = await lemlStream(
      context(dir, { ...fixed, update: "local", replay: "10" }, new RecordingProgress()),
    );
    assert(r.metrics["P@1"] >= 0, "the local run gave no P@1");
  }));

Deno.test("repro leml refuses a --rank above the number of labels before any fit", () =>
  inFolder(trainTestFolder(), async (dir) => {
    const progress = new RecordingProgress();
    await assertThrowsMsg(
      () => leml(context(dir, { rank: "9", l2: "true", lambda: "1" }, progress)),
      RangeError,
      "--rank 9 is above the 4 labels of --dataset toy",
    );
    assert(progress.started.length === 0, `work started: ${progress.started}`);
    // a rank of L is a rank W·Hᵀ can have
    const r = await leml(context(dir, { rank: "4", l2: "true", lambda: "1" }, progress));
    assert(r.extra?.rank === 4, `rank ${r.extra?.rank}`);
  }));

Deno.test("repro pop refuses POP's options and --val-fraction before the BR fit, naming the flags", () =>
  inFolder(trainTestFolder(), async (dir) => {
    for (
      const [flags, start] of [
        [{ epsilon: "-1" }, "--epsilon -1: "],
        [{ epsilon: "1" }, "--epsilon 1: "],
        [{ delta: "1.5" }, "--delta 1.5: "],
        [{ lambda: "-0.5" }, "--lambda -0.5: "],
        [{ "val-fraction": "1" }, "--val-fraction must be in (0, 1)"],
      ] as const
    ) {
      await assertRefusedFirst((p) => pop(context(dir, flags, p)), "", start);
    }
  }));

Deno.test("repro sleec-curve refuses --learners past the limit and a member of another rank before any fit", () =>
  inFolder(trainTestFolder(), async (dir) => {
    // the planted rows have 28 features: a pca member has rank min(--rank, 28)
    const cases = [
      [{ ...TINY_CURVE_FLAGS, learners: "2000" }, "--learners 2000: "],
      [
        { ...TINY_CURVE_FLAGS, rank: "40", members: "pca:0.25" },
        "sleec-curve: member 'pca:0.25' has another rank than the model's 40 (28, from the 28 " +
        "features of --dataset toy): give --rank 28 or less",
      ],
    ] as const;
    for (const [flags, start] of cases) {
      await assertRefusedFirst((p) => sleecCurve(context(dir, flags, p)), "", start);
    }
  }));
