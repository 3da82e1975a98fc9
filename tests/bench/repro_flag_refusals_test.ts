/**
 * Flags of the repro experiments that were silently misread, so that the printed JSON reported
 * a run other than the one made: `ova --epochs 0 | 1.5`, `br` flags its trainer does not read,
 * a bare `leml-missing --fraction` or `leml-stream --lambda` (read as 1), and a bad
 * `leml-missing --br-lambda` found only after the LEML model was trained and evaluated, and a
 * `sleec-pool --seed` that nothing reads, and a fixed `--k` (`--neighbours`) next to the grid
 * it was to be chosen from (the grid was ignored), and a bare `coembed-ablation --repeats` or
 * `--epochs` (read as 1).
 */
import { assert, assertThrowsMsg } from "../helpers.ts";
import ova from "../../bench/repro/experiments/ova.ts";
import br from "../../bench/repro/experiments/br.ts";
import lemlMissing from "../../bench/repro/experiments/leml-missing.ts";
import lemlStream from "../../bench/repro/experiments/leml-stream.ts";
import sleecPool from "../../bench/repro/experiments/sleec-pool.ts";
import knn from "../../bench/repro/experiments/knn.ts";
import sleec from "../../bench/repro/experiments/sleec.ts";
import sleecStream from "../../bench/repro/experiments/sleec-stream.ts";
import sleecCurve from "../../bench/repro/experiments/sleec-curve.ts";
import coembedAblation from "../../bench/repro/experiments/coembed-ablation.ts";
import {
  inFolder,
  plantedTrainTestFolder,
  RecordingProgress,
  reproContext,
  TINY_LEML_STREAM_FLAGS,
} from "./repro_context.ts";

/** A folder with `toy.train.txt` (40 planted rows) and `toy.test.txt` (10 rows). */
const trainTestFolder = () => plantedTrainTestFolder("s28_repro_flags_", 3, 50, 40);

const context = reproContext;

Deno.test("repro ova refuses an --epochs that is not an integer >= 1", () =>
  inFolder(trainTestFolder(), async (dir) => {
    // 0 trained nothing and evaluated the empty model; 1.5 made two passes, reported as 1.5
    for (const epochs of ["0", "1.5", "-1"]) {
      await assertThrowsMsg(
        () => ova(context(dir, { epochs, replay: "0" })),
        RangeError,
        "--epochs must be an integer >= 1",
      );
    }
  }));

Deno.test("repro br refuses the flags its trainer does not read", () =>
  inFolder(trainTestFolder(), async (dir) => {
    // adam has no C or eps (the JSON reported them as used); DCD has no epochs
    await assertThrowsMsg(
      () => br(context(dir, { trainer: "adam", C: "0.5" })),
      TypeError,
      "--C does not apply to --trainer adam",
    );
    await assertThrowsMsg(
      () => br(context(dir, { trainer: "adam", eps: "0.5" })),
      TypeError,
      "--eps does not apply to --trainer adam",
    );
    await assertThrowsMsg(
      () => br(context(dir, { epochs: "3" })),
      TypeError,
      "--epochs does not apply to --trainer dcd",
    );
    // a bare --epochs has no value (it was read as 1)
    await assertThrowsMsg(
      () => br(context(dir, { trainer: "adam", epochs: true })),
      TypeError,
      "--epochs",
    );
    // what runs is what is reported
    const r = await br(context(dir, { trainer: "adam", epochs: "2" }));
    assert(r.extra?.epochs === 2 && !("C" in r.extra!), JSON.stringify(r.extra));
  }));

Deno.test("repro leml-missing: a bare --fraction is refused, not read as 1", () =>
  inFolder(trainTestFolder(), async (dir) => {
    await assertThrowsMsg(
      () => lemlMissing(context(dir, { fraction: true })),
      TypeError,
      "--fraction",
    );
  }));

Deno.test("repro leml-missing checks --br-lambda before training anything", () =>
  inFolder(trainTestFolder(), async (dir) => {
    const progress = new RecordingProgress();
    await assertThrowsMsg(
      () => lemlMissing(context(dir, { "br-lambda": "0" }, progress)),
      TypeError,
      "--br-lambda must be > 0",
    );
    assert(progress.started.length === 0, `work started first: ${progress.started}`);
  }));

Deno.test("repro leml-stream: a bare --lambda is refused, not read as 1", () =>
  inFolder(trainTestFolder(), async (dir) => {
    const fixed = TINY_LEML_STREAM_FLAGS;
    await assertThrowsMsg(
      () => lemlStream(context(dir, { ...fixed, lambda: true })),
      TypeError,
      "--lambda must be a number >= 0",
    );
  }));

Deno.test("repro sleec-pool refuses a --seed it does not read", () =>
  inFolder(trainTestFolder(), async (dir) => {
    // every member's randomness comes from its spec: the JSON reported "seed": 3 for nothing
    await assertThrowsMsg(
      () => sleecPool({ ...context(dir, { members: "raw", "k-grid": "3" }), seed: 3 }),
      TypeError,
      "--seed is not read",
    );
  }));

Deno.test("repro knn and the SLEEC experiments refuse a fixed value next to its grid", () =>
  inFolder(trainTestFolder(), async (dir) => {
    const sleecFixed = { clusters: "1", weighted: "true", rank: "4", learners: "1" };
    const cases: [() => Promise<unknown>, string][] = [
      [() => knn(context(dir, { k: "3", "k-grid": "1,5" })), "--k-grid"],
      [
        () => sleec(context(dir, { ...sleecFixed, k: "5", neighbours: "10", "k-grid": "3,5" })),
        "--k-grid",
      ],
      [
        () =>
          sleec(
            context(dir, { ...sleecFixed, k: "5", neighbours: "10", "neighbours-grid": "5,10" }),
          ),
        "--neighbours-grid",
      ],
      [() => sleecStream(context(dir, { k: "5", "k-grid": "3,5" })), "--k-grid"],
      [
        () =>
          sleecCurve(
            context(dir, {
              validation: "true",
              learners: "1",
              k: "5",
              weighted: "true",
              neighbours: "10",
              clusters: "1",
              rank: "4",
              "k-grid": "3,5",
            }),
          ),
        "--k-grid",
      ],
    ];
    for (const [run, flag] of cases) await assertThrowsMsg(run, TypeError, flag);
  }));

Deno.test("repro coembed-ablation: a bare --repeats or --epochs is refused, not read as 1", () =>
  inFolder(trainTestFolder(), async (dir) => {
    const small = { taus: "0.5", variants: "reference" };
    await assertThrowsMsg(
      () => coembedAblation(context(dir, { ...small, epochs: "1", repeats: true })),
      RangeError,
      "--repeats",
    );
    await assertThrowsMsg(
      () => coembedAblation(context(dir, { ...small, repeats: "1", epochs: true })),
      RangeError,
      "--epochs",
    );
  }));

Deno.test("the SLEEC experiments refuse a --k, --neighbours or --clusters that is not a positive integer before any work", () =>
  inFolder(trainTestFolder(), async (dir) => {
    const fixed = { weighted: "true", rank: "4", learners: "1", splits: "1" };
    const cases: [() => Promise<unknown>, string][] = [
      [() => sleec(context(dir, { ...fixed, clusters: "1", neighbours: "10", k: "0" })), "--k"],
      [
        () => sleec(context(dir, { ...fixed, clusters: "1", neighbours: "0", k: "5" })),
        "--neighbours",
      ],
      [
        () => sleec(context(dir, { ...fixed, clusters: "1.5", neighbours: "10", k: "5" })),
        "--clusters",
      ],
      [() => sleecStream(context(dir, { k: "0" })), "--k"],
      [
        () =>
          sleecCurve(
            context(dir, { ...fixed, validation: "true", clusters: "1", neighbours: "10", k: "0" }),
          ),
        "--k",
      ],
    ];
    // (a model would refuse them only after training, naming its own option)
    for (const [run, flag] of cases) {
      await assertThrowsMsg(run, TypeError, `${flag} must be a positive integer`);
    }
  }));
