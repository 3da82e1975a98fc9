// openSource on a path opens the file, then stats it (a directory is refused by name). When
// anything after the open failed (the stat here), the opened file was never closed: a leaked
// file descriptor. (Deno's resource sanitizer does not see an FsFile left open, so the test
// looks for a descriptor of the file in /proc/self/fd, on Linux.) `stat` is made to fail by a
// stand-in on Deno.FsFile for the length of the call (an fstat of an open file does not fail
// otherwise).
import { openSource } from "../../src/data/sources.ts";
import { assert, withTempDir } from "./helpers.ts";

/** How many of this process's file descriptors are open on `path`. */
async function openDescriptors(path: string): Promise<number> {
  let n = 0;
  for await (const e of Deno.readDir("/proc/self/fd")) {
    const target = await Deno.readLink(`/proc/self/fd/${e.name}`).catch(() => "");
    if (target === path) n++;
  }
  return n;
}

const LINUX = Deno.build.os === "linux";

Deno.test({
  name: "openSource: a file whose stat fails is closed, and the error comes back",
  ignore: !LINUX,
}, async () => {
  await withTempDir(async (dir) => {
    const path = await Deno.realPath(`${dir}`).then((d) => `${d}/x.txt`);
    await Deno.writeTextFile(path, "1 2 1\n0 1:1\n");
    const stat = Deno.FsFile.prototype.stat;
    Deno.FsFile.prototype.stat = () => Promise.reject(new Deno.errors.Interrupted("stat failed"));
    let error: unknown;
    try {
      await openSource(path);
    } catch (e) {
      error = e;
    } finally {
      Deno.FsFile.prototype.stat = stat;
    }
    assert(error instanceof Deno.errors.Interrupted, `not the stat's error: ${error}`);
    assert(await openDescriptors(path) === 0, `${path} left open`);
  });
});

Deno.test({
  name: "openSource: a directory is refused by name and closed",
  ignore: !LINUX,
}, async () => {
  await withTempDir(async (dir) => {
    const real = await Deno.realPath(dir);
    const error = await openSource(real).then(() => undefined, (e) => e);
    assert(error instanceof TypeError, `not a TypeError: ${error}`);
    assert(error.message === `Cannot read ${real}: it is a directory`, error.message);
    assert(await openDescriptors(real) === 0, `${real} left open`);
  });
});
