/**
 * Terminal progress of a running {@linkcode LearningService}: a status line (on a terminal's
 * stderr, through {@linkcode Progress}) with events/s, prequential P@1/P@5, rejects and memory,
 * refreshed a few times a second; `progress` events carry the same numbers for programs.
 *
 * @module
 */
import type { Progress } from "../progress/mod.ts";
import type { ServiceHandle } from "./service_handle.ts";

/**
 * The numbers of the status line, from a service.
 *
 * @example
 * ```ts
 * import { factory } from "../models/popularity/mod.ts";
 * import { LearningService } from "./service.ts";
 * import { statusNumbers } from "./live_progress.ts";
 * const dir = await Deno.makeTempDir();
 * const s = await LearningService.open({ factory, stateDir: dir, log: () => {} });
 * console.log(statusNumbers(s).rejects); // 0
 * await s.stop();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function statusNumbers(service: ServiceHandle): Record<string, number> {
  const l = service.predictor;
  const out: Record<string, number> = {
    "ev/s": Math.round(service.recentRate()),
    rejects: l.rejected,
    "RSS MB": Math.round(Deno.memoryUsage().rss / 1e5) / 10,
  };
  if (l.window.filled > 0) {
    out["P@1"] = l.window.precisionAt1;
    out["P@5"] = l.window.precisionAt5;
  }
  return out;
}

/**
 * Ticks `progress` with the applied events and {@linkcode statusNumbers} every `intervalMs`
 * until the returned function is called (which finishes the line).
 *
 * @example
 * ```ts
 * import { factory } from "../models/popularity/mod.ts";
 * import { Progress } from "../progress/mod.ts";
 * import { LearningService } from "./service.ts";
 * import { showProgress } from "./live_progress.ts";
 * const dir = await Deno.makeTempDir();
 * const s = await LearningService.open({ factory, stateDir: dir, log: () => {} });
 * const stop = showProgress(s, Progress.silent(), "learning", 10);
 * await s.ingestBody('{"features": {"1": 1}, "labels": ["a"]}\n', "http");
 * await new Promise((r) => setTimeout(r, 30));
 * stop();
 * await s.stop();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function showProgress(
  service: ServiceHandle,
  progress: Progress,
  label = "learning",
  intervalMs = 250,
): () => void {
  let last = service.applied;
  progress.start(undefined, label);
  const timer = setInterval(() => {
    const applied = service.applied;
    progress.tick(applied - last, statusNumbers(service));
    last = applied;
  }, intervalMs);
  return () => {
    clearInterval(timer);
    const applied = service.applied;
    progress.tick(applied - last, statusNumbers(service));
    progress.done();
  };
}
