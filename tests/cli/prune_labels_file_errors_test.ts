/**
 * `tagstream prune` and `deno task prune` read the dataset's optional `NAME.labels.txt`: only a
 * missing file means "no label names". Anything else wrong with it (it cannot be read, e.g. a
 * directory stands at its path; its text is not UTF-8; a name is empty or repeated) is bad input
 * naming the file, and nothing is written. (`tagstream prune --state-dir` treated any failure to
 * read it as "no names", and both read invalid UTF-8 as U+FFFD names and kept empty and repeated
 * names, which the pruned BR model file then carried.)
 */
import { assert, assertEquals, filesIn, runMain, TEN_ROWS_XC, withTempDir } from "./helpers.ts";

/** `dir/good.train.txt`, a BR model `dir/good.tsm` and a BR state directory `dir/st`. */
async function fixture(dir: string): Promise<void> {
  await Deno.writeTextFile(`${dir}/good.train.txt`, TEN_ROWS_XC);
  for (const target of [["--out", `${dir}/good.tsm`], ["--state-dir", `${dir}/st`]]) {
    const t = await runMain([
      "train",
      "--quiet",
      "--data",
      `${dir}/good.train.txt`,
      "--model",
      "br",
      ...target,
    ]);
    assertEquals(t.code, 0, t.err);
  }
}

/** The three ways to give prune its model, each writing `dir/out.tsm`. */
function sources(dir: string): string[][] {
  const base = ["prune", "--dataset", "good", "--data-dir", dir, "--no-plot"];
  return [
    [...base, "--state-dir", `${dir}/st`, "--out", `${dir}/out.tsm`],
    [...base, "--model", `${dir}/good.tsm`, "--out", `${dir}/out.tsm`],
    [...base, "--train", "br", "--out", `${dir}/out.tsm`],
  ];
}

/** Each source with `good.labels.txt` made by `make`: exit 2, stderr matching `re`, no output. */
async function expectRefused(
  dir: string,
  make: (file: string) => Promise<void>,
  re: RegExp,
): Promise<void> {
  const file = `${dir}/good.labels.txt`;
  await make(file);
  try {
    for (const args of sources(dir)) {
      const before = await filesIn(dir);
      const r = await runMain(args);
      assertEquals(r.code, 2, `${args.join(" ")}\nstdout: ${r.out}\nstderr: ${r.err}`);
      assert(re.test(r.err), `${args.join(" ")}: ${re} not in: ${r.err}`);
      assertEquals(await filesIn(dir), before, `${args.join(" ")} wrote files`);
    }
  } finally {
    await Deno.remove(file, { recursive: true });
  }
}

Deno.test("prune: a NAME.labels.txt that cannot be read is an error naming it", async () => {
  await withTempDir(async (dir) => {
    await fixture(dir);
    // (a directory at the file's path: a fault that root, who reads a chmod 000 file, gets too)
    await expectRefused(
      dir,
      (file) => Deno.mkdir(file),
      /Cannot read label names .*good\.labels\.txt: .*(directory|Is a)/i,
    );
  });
});

Deno.test("prune --state-dir: an unreadable NAME.labels.txt is reported, not taken as no names", async () => {
  await withTempDir(async (dir) => {
    await fixture(dir);
    // a state directory learned from events: its labels are named, and only the dataset's
    // names could put them in the dataset's label order
    const events = [
      '{"features": {"0": 1}, "labels": ["a"]}',
      '{"features": {"1": 1}, "labels": ["b"]}',
    ];
    await Deno.writeTextFile(`${dir}/ev.ndjson`, events.join("\n") + "\n");
    const t = await runMain([
      "train",
      "--quiet",
      "--data",
      `${dir}/ev.ndjson`,
      "--model",
      "br",
      "--state-dir",
      `${dir}/st-ev`,
    ]);
    assertEquals(t.code, 0, t.err);
    await Deno.mkdir(`${dir}/good.labels.txt`);
    const args = ["prune", "--dataset", "good", "--data-dir", dir, "--no-plot"];
    const r = await runMain([...args, "--state-dir", `${dir}/st-ev`, "--out", `${dir}/o.tsm`]);
    assertEquals(r.code, 2, r.err);
    assert(/Cannot read label names .*good\.labels\.txt/.test(r.err), r.err);
    assert(!/label order/.test(r.err), r.err);
  });
});

Deno.test("prune: label names that are not UTF-8 are an error naming the file and line", async () => {
  await withTempDir(async (dir) => {
    await fixture(dir);
    await expectRefused(
      dir,
      (file) => Deno.writeFile(file, Uint8Array.of(0x61, 0x0a, 0x62, 0xff, 0x0a, 0x63, 0x0a)),
      /good\.labels\.txt line 2: not valid UTF-8/,
    );
  });
});

Deno.test("prune: an empty or repeated label name is an error naming the file and line", async () => {
  await withTempDir(async (dir) => {
    await fixture(dir);
    await expectRefused(
      dir,
      (file) => Deno.writeTextFile(file, "a\nb\na\n"),
      /good\.labels\.txt line 3: label name "a" repeats line 1/,
    );
    await expectRefused(
      dir,
      (file) => Deno.writeTextFile(file, "a\n\nc\n"),
      /good\.labels\.txt line 2: empty label name/,
    );
  });
});

Deno.test("prune: without NAME.labels.txt, or with a good one, every source prunes", async () => {
  await withTempDir(async (dir) => {
    await fixture(dir);
    for (const names of [undefined, "a\nb\nc\n"]) {
      if (names !== undefined) await Deno.writeTextFile(`${dir}/good.labels.txt`, names);
      for (const args of sources(dir)) {
        const r = await runMain(args);
        assertEquals(r.code, 0, `${args.join(" ")}\nstdout: ${r.out}\nstderr: ${r.err}`);
        await Deno.remove(`${dir}/out.tsm`).catch((e) => {
          // (POP may find nothing to prune, and write nothing)
          if (!(e instanceof Deno.errors.NotFound)) throw e;
        });
      }
    }
  });
});
