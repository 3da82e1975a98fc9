/** Bad input and bad options give built-in errors naming the place. */
import { resolveConfig } from "../../../src/models/coembed/config.ts";
import { fitCoEmbed } from "../../../src/models/coembed/fit.ts";
import { CoEmbedLearner } from "../../../src/models/coembed/learner.ts";

function throws(fn: () => unknown, type: ErrorConstructor, text: string): void {
  try {
    fn();
  } catch (e) {
    if (!(e instanceof type)) throw new Error(`expected ${type.name}, got ${e}`);
    if (!(e as Error).message.includes(text)) {
      throw new Error(`message "${(e as Error).message}" does not mention "${text}"`);
    }
    return;
  }
  throw new Error(`no error (expected ${type.name} mentioning "${text}")`);
}

Deno.test("CoEmbed options are validated", () => {
  throws(() => resolveConfig({ variant: "X" }), RangeError, "variant");
  throws(() => resolveConfig({ rankX: 1.5 }), RangeError, "rankX");
  throws(() => resolveConfig({ gamma: -1 }), RangeError, "gamma");
  throws(() => resolveConfig({ alpha: 2 }), RangeError, "alpha");
  throws(() => resolveConfig({ lambda: "1" }), TypeError, "lambda");
  throws(() => resolveConfig({ absent: "nan" }), RangeError, "absent");
});

Deno.test("CoEmbed rejects out-of-range indices and bad states, keeping what it learned", () => {
  const m = CoEmbedLearner.create({ variant: "L", seed: 1 }, 3, 2);
  m.learnOne({ indices: Int32Array.of(0, 2), values: Float32Array.of(1, 2) }, [1]);
  const before = m.toState();
  const bad = {
    x: {
      numRows: 1,
      numCols: 3,
      indptr: Int32Array.of(0, 1),
      indices: Int32Array.of(7),
      values: Float32Array.of(1),
    },
    y: { numRows: 1, numCols: 2, indptr: Int32Array.of(0, 0), indices: new Int32Array(0) },
  };
  throws(() => m.learnMany(bad), RangeError, "row 0 has feature index 7 out of range [0, 3)");
  const nan = { ...bad, x: { ...bad.x, indices: Int32Array.of(1), values: Float32Array.of(NaN) } };
  throws(() => m.learnMany(nan), RangeError, "non-finite value at feature 1");
  throws(
    () => m.learnOne({ indices: Int32Array.of(0), values: Float32Array.of(1) }, [-1]),
    RangeError,
    "label -1",
  );
  const after = m.toState();
  for (const k of Object.keys(before.tensors)) {
    const a = before.tensors[k], b = after.tensors[k];
    if (a.length !== b.length || a.some((v, i) => v !== b[i])) throw new Error(`${k} changed`);
  }
  throws(() => CoEmbedLearner.restore({ ...before, kind: "leml" }), TypeError, "coembed");
  throws(
    () =>
      CoEmbedLearner.restore({ ...before, tensors: { ...before.tensors, V: new Float64Array(1) } }),
    RangeError,
    "tensor V",
  );
  throws(
    () => fitCoEmbed({ x: bad.x, y: { ...bad.y, numRows: 2, indptr: Int32Array.of(0, 0, 0) } }),
    RangeError,
    "labels",
  );
});
