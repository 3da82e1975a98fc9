// `formatFromName` (the format `deno task demo`, `train` and `eval` take from `--data`) named an
// http(s) URL by its whole text: `https://host/events.ndjson?token=1` ends in the query, so the
// events were read as XC ("expected the header 'N D L'") although `readExamples` names the same
// URL by its path. It now names a URL by its path too.
import { formatFromName } from "../../src/data/readers.ts";
import { assertEquals } from "../helpers.ts";

Deno.test("formatFromName: a URL is named by its path, not its query or fragment", () => {
  assertEquals(formatFromName("https://host/events.ndjson?token=1"), "ndjson");
  assertEquals(formatFromName("http://host/a/train.svm.gz?x=1#top"), "libsvm");
  assertEquals(formatFromName("file:///data/e.jsonl#frag"), "ndjson");
  assertEquals(formatFromName("https://host/data.txt?f=e.ndjson"), "xc");
  // paths and malformed URLs as before
  assertEquals(formatFromName("dir?/e.ndjson"), "ndjson");
  assertEquals(formatFromName("http://[bad/e.ndjson"), "ndjson");
  assertEquals(formatFromName("-"), "xc");
});
