/**
 * SHA-256 of the model files every model family writes on fixed seeds: f32, f16 and i8 files,
 * files with label names and a signed hashing feature space, and the POP-pruned files of the
 * families `pruneModel` takes. Run it on two checkouts and compare the output to check that a
 * refactoring keeps every model file byte for byte:
 *
 * ```sh
 * deno run --allow-read --allow-env scripts/model_digests.ts > after.txt
 * ```
 *
 * Also digests the answers (top 5 of held-out rows) of each model and of the SDK on its file.
 * Uses only the public APIs of mod.ts and sdk/mod.ts (`--root DIR` reads another checkout's mod.ts).
 *
 * @module
 */
if (import.meta.main) {
  const args = Deno.args;
  const rootArg = args.indexOf("--root");
  const root = rootArg >= 0
    ? new URL(`file://${args[rootArg + 1].replace(/\/?$/, "/")}`)
    : new URL("../", import.meta.url);
  const api = await import(new URL("mod.ts", root).href) as typeof import("../mod.ts");
  const sdk = await import(new URL("sdk/mod.ts", root).href) as typeof import("../sdk/mod.ts");

  const hex = async (b: Uint8Array) =>
    [...new Uint8Array(await crypto.subtle.digest("SHA-256", b as Uint8Array<ArrayBuffer>))]
      .map((x) => x.toString(16).padStart(2, "0")).join("");

  const D = 300, L = 40;
  const examples = [...api.syntheticExamples({ rows: 360, numFeatures: D, numLabels: L, seed: 5 })];
  const train = api.examplesToBatch(examples.slice(0, 300), D, L);
  const valid = api.examplesToBatch(examples.slice(300), D, L);
  const batches = Array.from(
    { length: 5 },
    (_, i) => api.examplesToBatch(examples.slice(i * 60, i * 60 + 60), D, L),
  );
  const counts = new Float64Array(L);
  for (const i of train.y.indices) counts[i]++;
  const props = api.propensities(counts, 300);

  const lines: string[] = [];
  for (const name of api.MODEL_NAMES) {
    const factory = await api.loadFactory(name);
    const model = factory.create({ seed: 11 });
    for (const b of batches) model.learnMany(b);
    // the answers (top-k of every validation row) as well as the files
    const answers: number[] = [];
    for (let r = 0; r < valid.x.numRows; r++) {
      const [a, b] = [valid.x.indptr[r], valid.x.indptr[r + 1]];
      const top = model.predictTopK({
        indices: valid.x.indices.subarray(a, b),
        values: valid.x.values.subarray(a, b),
      }, 5);
      answers.push(...top.labels, ...top.scores);
    }
    lines.push(`${name} answers ${await hex(new Uint8Array(Float64Array.from(answers).buffer))}`);
    const files: Record<string, Uint8Array> = {};
    const options = {
      f32: {},
      f16: { quantize: "f16" as const },
      i8: { quantize: "i8" as const },
      named: {
        labelNames: Array.from({ length: model.numLabels }, (_, i) => `label ${i}`),
        featureSpace: {
          type: "hashing" as const,
          dim: Math.max(model.numFeatures, 512),
          seed: 3,
          signed: true,
        },
      },
    };
    for (const [what, o] of Object.entries(options)) {
      try {
        const bytes = files[what] = model.toModelFile(o);
        lines.push(`${name} ${what} ${bytes.length} ${await hex(bytes)}`);
      } catch (e) {
        lines.push(`${name} ${what} ${(e as Error).constructor.name}`);
      }
    }
    if (!files.f32) continue;
    // the SDK's answers on the file
    const edge = sdk.loadModel(files.f32), sdkAnswers: number[] = [];
    for (let r = 0; r < valid.x.numRows; r++) {
      const [a, b] = [valid.x.indptr[r], valid.x.indptr[r + 1]];
      const x = { indices: valid.x.indices.subarray(a, b), values: valid.x.values.subarray(a, b) };
      const top = edge.predictTopK(x, 5);
      sdkAnswers.push(...top.labels, ...top.scores);
    }
    lines.push(`${name} sdk ${await hex(new Uint8Array(Float64Array.from(sdkAnswers).buffer))}`);
    const content = api.decodeModelFile(files.f32);
    try {
      const pruned = api.prune.pruneModel(content, valid, counts, props, { delta: 1 }, files.f32);
      lines.push(`${name} pruned ${pruned.bytes.length} ${await hex(pruned.bytes)}`);
    } catch (e) {
      lines.push(`${name} pruned ${(e as Error).constructor.name}: ${(e as Error).message}`);
    }
  }
  console.log(lines.join("\n"));
}
