/**
 * Maps model names to their {@linkcode EstimatorFactory}. {@linkcode MODEL_NAMES} is the one list
 * of the models: the help texts of `tagstream train`/`serve` and `deno task demo` are built from
 * it, and the tests (tests/models/contract_registry_test.ts, tests/docs/) check that every name
 * has its estimator checks and appears in the help texts and DEVELOPERS.md ("Adding a model").
 * Models that are statically imported here are always available; the others are loaded from
 * `src/models/<name>/mod.ts` on demand by {@linkcode loadFactory}.
 *
 * @module
 */
import type { EstimatorFactory } from "./estimator.ts";
import { factory as leml } from "./leml/mod.ts";
import { factory as coembed } from "./coembed/mod.ts";
import { factory as br } from "./br/mod.ts";
import { factory as knn } from "./knn/mod.ts";
import { factory as popularity } from "./popularity/mod.ts";
import { factory as ova } from "./ova/mod.ts";

/** Model names the CLI and the service accept. */
export const MODEL_NAMES = ["leml", "sleec", "coembed", "br", "ova", "knn", "popularity"] as const;

/** One of {@linkcode MODEL_NAMES}. */
export type ModelName = (typeof MODEL_NAMES)[number];

/**
 * Factories linked into this build.
 *
 * @example
 * ```ts
 * import { factories } from "./registry.ts";
 * console.log(factories.leml?.kind); // "leml"
 * ```
 */
export const factories: Partial<Record<ModelName, EstimatorFactory>> = {
  leml,
  coembed,
  br,
  ova,
  knn,
  popularity,
};

/**
 * The factory of a model name: statically linked, else imported from
 * `src/models/<name>/mod.ts`. Throws a TypeError for an unknown name or a missing module.
 *
 * @example
 * ```ts
 * import { loadFactory } from "./registry.ts";
 * const f = await loadFactory("leml");
 * console.log(f.create({ seed: 1 }).kind); // "leml"
 * await loadFactory("lemx").catch((e) => console.log(e.message)); // unknown model 'lemx': expected one of leml, ...
 * ```
 */
export async function loadFactory(name: string): Promise<EstimatorFactory> {
  if (!(MODEL_NAMES as readonly string[]).includes(name)) {
    throw new TypeError(`unknown model '${name}': expected one of ${MODEL_NAMES.join(", ")}`);
  }
  const linked = factories[name as ModelName];
  if (linked !== undefined) return linked;
  const specifier = new URL(`./${name}/mod.ts`, import.meta.url).href;
  let mod: { factory?: EstimatorFactory };
  try {
    mod = await import(specifier);
  } catch (e) {
    throw new TypeError(`model '${name}' is not available in this build: ${(e as Error).message}`);
  }
  if (mod.factory === undefined || typeof mod.factory.create !== "function") {
    throw new TypeError(`src/models/${name}/mod.ts does not export an EstimatorFactory 'factory'`);
  }
  return mod.factory;
}
