/**
 * The learning service as the HTTP app (`http_app.ts`) and the status line
 * (`live_progress.ts`) see it. Two implementations: {@linkcode LearningService} learns on the
 * calling thread; `LearnerThread` (`learner_thread.ts`) runs a `LearningService` on a worker
 * thread and answers predictions from a replica of its model, so that learning never holds up
 * a `/predict` request.
 *
 * @module
 */
import type { IngestResult, PublishedModel } from "./service_types.ts";
import type { StreamLearner } from "./learner.ts";

/**
 * What serving needs from a learning service.
 *
 * @example
 * ```ts
 * import type { ServiceHandle } from "./service_handle.ts";
 * import { LearningService } from "./service.ts";
 * import { factory } from "../models/popularity/mod.ts";
 * const dir = await Deno.makeTempDir();
 * const s: ServiceHandle = await LearningService.open({ factory, stateDir: dir, log: () => {} });
 * const r = await s.ingestBody('{"features": {"0": 1}, "labels": ["a"]}\n', "http");
 * console.log(r.accepted, s.applied); // 1 1
 * await s.stop();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export interface ServiceHandle {
  /** Events applied so far (accepted and learned or queued). */
  readonly applied: number;
  /**
   * The learner answering predictions (vocabularies, model, prequential window, rejects). For
   * a `LearnerThread`, a replica refreshed from the learning thread (see there).
   */
  readonly predictor: StreamLearner;
  /** The last published model file, if any. */
  readonly published: PublishedModel | undefined;
  /** Whether the service is stopping (new events are refused). */
  readonly stopping: boolean;
  /**
   * Seconds a client is told to wait (`Retry-After`) before sending again what the service
   * refused while unavailable (stopping, or its write-ahead log cannot be written): the
   * service's `retryAfterSeconds` option. Optional: without it, 2 (the service's default; see
   * {@linkcode retryAfterOf}).
   */
  readonly retryAfterSeconds?: number;
  /** Validates and applies an NDJSON body (see `LearningService.ingestBody`). */
  ingestBody(body: Uint8Array | string, source: string): Promise<IngestResult>;
  /** Metrics for `GET /metrics`. */
  metrics(): Promise<Record<string, unknown>>;
  /**
   * The latest metrics at once, without waiting for the learner (with `metricsAgeSeconds`), if
   * the service keeps them (a `LearnerThread`); undefined: ask {@linkcode ServiceHandle.metrics}.
   */
  latestMetrics?(): Record<string, unknown> | undefined;
  /** Writes a checkpoint now; resolves once it is durable. */
  checkpoint(): Promise<void>;
  /** Builds and publishes a model file now. */
  publish(): Promise<PublishedModel>;
  /** Events per second over about the last 5 seconds. */
  recentRate(): number;
  /** Stops the sources, writes the last checkpoint and releases everything. */
  stop(): Promise<void>;
}

/**
 * The seconds a client of `service` is told to wait (`Retry-After`): its
 * {@linkcode ServiceHandle.retryAfterSeconds}, or 2 (the service's default) when it has none.
 *
 * @example
 * ```ts
 * import { retryAfterOf } from "./service_handle.ts";
 * console.log(retryAfterOf({ retryAfterSeconds: 5 }), retryAfterOf({})); // 5 2
 * ```
 */
export function retryAfterOf(service: Pick<ServiceHandle, "retryAfterSeconds">): number {
  return service.retryAfterSeconds ?? 2;
}
