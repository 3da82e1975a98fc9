/**
 * `repro sleec-pool` and `repro split-check` check every `--members` spec before the first member
 * is fitted: an unknown spec, or a `pca`/`raw` member on more features than its dense matrix
 * takes, was refused only when its turn came, after the members before it were fitted (minutes
 * on delicious); split-check's refusal also named `sleec-pool`. `sleec:0:SEED` (no clusters) is
 * refused: it was fitted as one cluster under the name of the spec.
 */
import { assert, assertThrowsMsg } from "../helpers.ts";
import { Progress } from "../../src/progress/mod.ts";
import sleecPool from "../../bench/repro/experiments/sleec-pool.ts";
import splitCheck from "../../bench/repro/experiments/split-check.ts";
import { checkMembers, MAX_DENSE_FEATURES } from "../../bench/repro/sleec_pool_members.ts";

/** A silent progress reporter that counts the member fits (one tick each). */
class CountingProgress extends Progress {
  ticks = 0;
  constructor() {
    super({ silent: true, intervalMs: 0 });
  }
  override tick(n = 1, info?: Record<string, number>): void {
    this.ticks += n;
    super.tick(n, info);
  }
}

/** `toy.train.txt` and `toy.test.txt` of 30 and 10 rows over `numFeatures` features, 3 labels. */
async function folder(numFeatures: number): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "tagstream_pool_members_" });
  const rows = (n: number) =>
    Array.from({ length: n }, (_, i) => `${i % 3} ${i % 3}:1 ${3 + (i % 5)}:0.5`);
  await Deno.writeTextFile(
    `${dir}/toy.train.txt`,
    [`30 ${numFeatures} 3`, ...rows(30)].join("\n") + "\n",
  );
  await Deno.writeTextFile(
    `${dir}/toy.test.txt`,
    [`10 ${numFeatures} 3`, ...rows(10)].join("\n") + "\n",
  );
  return dir;
}

function context(dataDir: string, flags: Record<string, string>, progress: Progress) {
  return { dataset: "toy", dataDir, seed: 0, flags, progress };
}

Deno.test("repro sleec-pool and split-check refuse an unknown member before fitting the others", async () => {
  const dir = await folder(8);
  try {
    const runs = [
      ["sleec-pool", (p: Progress) => sleecPool(context(dir, { members: "raw,bogus" }, p))],
      ["split-check", (p: Progress) => splitCheck(context(dir, { members: "raw,bogus" }, p))],
    ] as const;
    for (const [name, run] of runs) {
      const progress = new CountingProgress();
      await assertThrowsMsg(() => run(progress), TypeError, `${name}: unknown member 'bogus'`);
      assert(progress.ticks === 0, `${name}: ${progress.ticks} fits before the refusal`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("repro sleec-pool and split-check refuse a dense member on too many features before any fit", async () => {
  const dir = await folder(MAX_DENSE_FEATURES + 1);
  try {
    const members = "sleec:1:0,raw";
    const config = JSON.stringify({ rank: 2, svpNeighbours: 5 });
    const runs = [
      ["sleec-pool", (p: Progress) => sleecPool(context(dir, { members, config }, p))],
      ["split-check", (p: Progress) => splitCheck(context(dir, { members, config }, p))],
    ] as const;
    for (const [name, run] of runs) {
      const progress = new CountingProgress();
      await assertThrowsMsg(
        () => run(progress),
        RangeError,
        `${name}: member 'raw' needs a dense ${MAX_DENSE_FEATURES + 1} × ${
          MAX_DENSE_FEATURES + 1
        } matrix`,
      );
      assert(progress.ticks === 0, `${name}: ${progress.ticks} fits before the refusal`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a sleec member of 0 clusters is refused", async () => {
  await assertThrowsMsg(
    () => checkMembers(["sleec:0:0"], "sleec-pool"),
    RangeError,
    "sleec-pool: member 'sleec:0:0': C, the clusters, must be at least 1",
  );
  checkMembers(["sleec:1:0", "sleec:6:2:0.5"], "sleec-pool"); // fine
});
