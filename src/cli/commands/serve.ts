/**
 * `tagstream serve`: the continuous learning service over HTTP (Hono on `Deno.serve`), with
 * optional Redis Stream and followed-file sources, checkpoints in `--state-dir`, and a status
 * line on a terminal. Prints one JSON line on stdout once listening
 * (`{"event":"listening","url":...,"port":...}`); logs go to stderr. SIGTERM or SIGINT stops it
 * cleanly (exit status 0): in-flight requests whose bodies have arrived finish, a body still
 * arriving is cut within 0.1 s (503 with `Retry-After`, nothing of it applied; a stalled client
 * does not hold the stop up), connections still open 1 s after the last answer are closed, a
 * last checkpoint is written, Redis entries are acknowledged.
 * Every step of the stop runs even if one before it failed; the first failure is then reported
 * (exit status 1) once the service has stopped.
 *
 * @module
 */
import { loadFactory } from "../../models/registry.ts";
import { LearningService } from "../../service/service.ts";
import { LearnerThread } from "../../service/learner_thread.ts";
import type { ServiceHandle } from "../../service/service_handle.ts";
import type { EstimatorFactory } from "../../models/estimator.ts";
import { createApp } from "../../service/http_app.ts";
import { showProgress } from "../../service/live_progress.ts";
import { Progress } from "../../progress/mod.ts";
import {
  type Command,
  type Flags,
  intFlag,
  numberFlag,
  parseFlags,
  requiredFlag,
  stringFlag,
} from "./args.ts";
import { DEFAULT_MODEL, LEARNER_USAGE, usageWithModelOptions } from "./learner_flags.ts";
import { checkEventFile, checkFollowFile, checkStateDir } from "./path_checks.ts";
import { PUBLISH_USAGE } from "./publish.ts";
import { namedCheckpointError, namedStateDirError } from "./state.ts";
import {
  growthLimitsFromFlags,
  growthLimitsLine,
  log,
  SERVE_FLAGS,
  serviceOptionsFromFlags,
} from "./serve_flags.ts";
import { noteAlsoFailed, runEveryStep } from "./stop_steps.ts";
import { refuseChangedSettings } from "./resume_settings.ts";
import { MAX_INT32, MAX_TIMER_MS } from "../../service/option_rules.ts";
import { TcpFront, type TcpFrontStats } from "../../service/tcp_front.ts";
import { PREDICT_LIMITS } from "../../../sdk/internal.ts";
import { lockStateDir, type StateDirLock } from "../state_lock.ts";

const USAGE = `tagstream serve --state-dir DIR [options]

Learns continuously from events (test-then-train) and serves predictions:
  POST /events    NDJSON events, one per line (bearer token from $TAGSTREAM_TOKEN)
  POST /predict   {"features": {...}, "k": 5}, {"indices": [...], "values": [...], "k": 5}
                  (values omitted: binary features) or {"rows": [<row>, ...], "k": 5}
  GET  /metrics   counts, rejects, prequential P@1/P@5, model version, memory
  GET  /model     the last published model file (ETag, X-Model-Version)
  GET  /schema/predict.json   the JSON Schema of POST /predict (no token)
  POST /checkpoint, POST /publish; GET /health (no token)

Server:
  --state-dir DIR         checkpoint, write-ahead log and published model (required)
  --port P                TCP port (default 8080; 0 picks a free one)
  --hostname H            interface (default 127.0.0.1)
  --no-auth               run without a token ($TAGSTREAM_TOKEN must be unset)
  --public-read           GET /model, GET /metrics and POST /predict without the token
  --max-body-bytes N      largest POST /events body (default 8388608; larger: 413)
  --body-timeout S        seconds a request body may take to arrive (default 30; slower: 408)
  --max-in-flight N       requests handled at once (default 1024; more: 503 + Retry-After)
  --max-body-bytes-in-flight N   bytes of request bodies held at once, by their declared length
                          (default 268435456; more: 503 + Retry-After; one body always passes)
  --max-predict-bytes N   largest POST /predict body (default 1048576; larger: 413)
  --max-predict-rows N    most rows in one POST /predict (default 1000; more: 400)
  --max-k N               largest k of POST /predict (default 100; larger: 400)
  --header-timeout S      seconds for a request head to arrive, from the connection's opening or
                          the previous response (default 10; slower: 408, closed; 0: off)
  --max-connections N     connections held at once (default 1024; more: 503 + Retry-After, closed)
  --no-front              no TCP front: Deno.serve on the port itself, without the header
                          timeout and connection cap (behind a proxy that enforces them)
  --quiet                 no status line
  --no-label-index        (learner thread) answer /predict of a low-rank model (leml, coembed)
                          exactly, by scoring every label (default: with 4096 labels or more,
                          from a label index on the replica: exact scores, recall ~0.99, the
                          index built on a worker of its own, so /predict never waits for it)
  --same-thread           learn on the serving thread (default: a learner thread, so that
                          learning never holds up /predict; predictions then come from a
                          replica of the model refreshed every 100 ms)

Sources besides HTTP:
  --source redis://HOST:PORT[/DB]   consume a Redis Stream with a consumer group
                          (redis://[USER]:PASS@... sends AUTH; rediss://... uses TLS)
  --redis-ca-file PEM     CA certificate to trust for rediss://
  --redis-claim-idle-ms N take over entries pending with a dead consumer for N ms
                          (default 60000; 0: never)
  --redis-reply-timeout-ms N  take a Redis server silent for N ms (beyond a blocking read's
                          wait) for dead and connect again; also the limit of connecting
                          (TCP and TLS handshake) (default 10000)
  --stream-key KEY        stream key (default tagstream:events)
  --group NAME            consumer group (default tagstream)
  --consumer NAME         consumer name, keep it stable across restarts (default learner-1)
  --follow FILE           also follow an NDJSON file (like tail -F: one that does not exist
                          yet is waited for; a gzip file cannot be followed)

Durability:
  --checkpoint-every N    checkpoint after N events (default 5000)
  --checkpoint-seconds T  checkpoint at least every T seconds while events arrive (default 5)
  --flush-ms MS           learn a partial minibatch after MS idle milliseconds (default 200)
  --no-wal                answer POST /events before the events are on disk (faster, not durable)
  --dedup-window N        event ids remembered: an event whose id is among the last N distinct
                          ids applied is acknowledged and not applied again (default 1000000,
                          16-24 bytes each; 0: off)
  --repair                start despite a damaged write-ahead log or checkpoint: drop the
                          damaged part, log and save (repair-*.json) exactly what was lost

Growth limits (an event over one is rejected, 400 naming the flag):
  --max-features N        largest feature index + 1 / feature vocabulary (default 262144)
  --max-labels N          largest label vocabulary (default 65536)
                          (--option numFeatures/numLabels over these is refused at start)
  --max-feature-growth N  most columns one event may add to the feature space (default 131072)
  --max-new-labels N      most new labels one event may add (default 1024)

${PUBLISH_USAGE}

${LEARNER_USAGE}

Example:
  TAGSTREAM_TOKEN=secret npx deno task tagstream serve --model leml --port 8080 --state-dir state`;

/**
 * Milliseconds a stop gives the server, once every request in flight has its answer, to send
 * those answers before the connections still open are closed. A JSON answer goes out in well
 * under a millisecond; what this cuts is a connection whose body never finished arriving (Deno's
 * server would hold it until it does) or a large `GET /model` still streaming to a slow client
 * (it gets a short body and fetches again from the restarted service). 1 s keeps the stop well
 * within a container platform's grace (10-30 s), leaving it to the last checkpoint.
 */
const STOP_FLUSH_MS = 1000;

/** Whether `serve` puts the TCP front (header timeout, connection cap) before `Deno.serve`. */
function frontEnabled(f: Flags): boolean {
  return f.values["no-front"] !== true;
}

/**
 * Refuses, before the service opens, a `--hostname` this machine cannot listen on (one that does
 * not resolve, or an address that is not local): a TypeError naming the flag. It listens on a
 * free port of `hostname` for a moment.
 */
function checkHostname(hostname: string): void {
  let probe: Deno.Listener;
  try {
    probe = Deno.listen({ hostname, port: 0 });
  } catch (e) {
    throw new TypeError(
      `tagstream serve: cannot listen on --hostname ${hostname}: ${(e as Error).message}`,
    );
  }
  probe.close();
}

/**
 * `service` as the HTTP app sees it: stopping as soon as `serve` begins to stop (`begun()`),
 * before the server's shutdown waits for the requests in flight, so that a body still arriving
 * is cut (503) rather than waited for, while the service itself stops only after the server
 * (it still applies and answers the bodies that have arrived).
 */
function stoppingView(service: ServiceHandle, begun: () => boolean): ServiceHandle {
  return {
    get applied() {
      return service.applied;
    },
    get predictor() {
      return service.predictor;
    },
    get published() {
      return service.published;
    },
    get stopping() {
      return begun() || service.stopping;
    },
    get retryAfterSeconds() {
      return service.retryAfterSeconds;
    },
    ingestBody: (body, source) => service.ingestBody(body, source),
    metrics: () => service.metrics(),
    latestMetrics: () => service.latestMetrics?.(),
    checkpoint: () => service.checkpoint(),
    publish: () => service.publish(),
    recentRate: () => service.recentRate(),
    stop: () => service.stop(),
  };
}

/**
 * The label vocabulary's and the feature space's sizes of the model `service` opened (the widest
 * event so far with index keys, the feature vocabulary's size with named features).
 */
function modelSizes(service: ServiceHandle): { labels: number; features: number } {
  const l = service.predictor;
  const p = l.parser;
  const named = p.featureKeys === "name" && p.limits.hashing === undefined;
  return {
    labels: p.labels.size,
    features: named ? p.features.size : Math.max(p.mark().extent, l.estimator.numFeatures),
  };
}

/** The `serve` command. */
export const serveCommand: Command = {
  name: "serve",
  summary: "learn from events over HTTP / Redis / a file and serve predictions and models",
  usage: USAGE,
  async run(args) {
    const f = parseFlags("serve", args, SERVE_FLAGS, { maxPositionals: 0 });
    if (f.values.help) {
      console.log(await usageWithModelOptions(USAGE, f));
      return 0;
    }
    const stateDir = requiredFlag(f, "state-dir", "serve");
    if (f.values["same-thread"] && f.values["no-label-index"]) {
      throw new TypeError(
        "tagstream serve: --no-label-index has no effect with --same-thread (the label index " +
          "answers /predict from the learner thread's replica)",
      );
    }
    await checkStateDir(stateDir);
    const followed = stringFlag(f, "follow");
    if (followed !== undefined) {
      await checkEventFile(followed, "follow");
      await checkFollowFile(followed);
    }
    const token = Deno.env.get("TAGSTREAM_TOKEN") || undefined;
    if (token === undefined && !f.values["no-auth"]) {
      throw new TypeError(
        "tagstream serve: set TAGSTREAM_TOKEN (clients send 'Authorization: Bearer <token>'), " +
          "or pass --no-auth to run without authentication",
      );
    }
    // it used to be ignored: the service started and answered every request without the token
    // with a 401 (the README's first step exports TAGSTREAM_TOKEN)
    if (token !== undefined && f.values["no-auth"]) {
      throw new TypeError(
        "tagstream serve: --no-auth has no effect while $TAGSTREAM_TOKEN is set (every request " +
          "but GET /health would still need the token): unset TAGSTREAM_TOKEN to run without " +
          "authentication, or drop --no-auth (--public-read lets the reads through without it)",
      );
    }
    const port = intFlag(f, "port", 8080, 0, 65535)!;
    const hostname = stringFlag(f, "hostname", "127.0.0.1")!;
    checkHostname(hostname);
    // the server's flags, read before the service opens (it creates the state directory and
    // loads its checkpoint): within what createApp and a timer take
    const limits = {
      maxBodyBytes: intFlag(f, "max-body-bytes", 8 << 20, 1, MAX_INT32),
      maxPredictBytes: intFlag(f, "max-predict-bytes", PREDICT_LIMITS.maxBodyBytes, 1, MAX_INT32),
      maxPredictRows: intFlag(f, "max-predict-rows", PREDICT_LIMITS.maxRows, 1, MAX_INT32),
      maxK: intFlag(f, "max-k", PREDICT_LIMITS.maxK, 1, MAX_INT32),
      bodyTimeoutMs: numberFlag(f, "body-timeout", 30, 0.001, MAX_TIMER_MS / 1000)! * 1000,
      maxInFlight: intFlag(f, "max-in-flight", 1024, 1, MAX_INT32),
      maxBodyBytesInFlight: intFlag(f, "max-body-bytes-in-flight", 256 << 20, 1, 2 ** 53 - 1),
    };
    const headerTimeoutS = numberFlag(f, "header-timeout", 10, 0, MAX_TIMER_MS / 1000)!;
    const maxConnections = intFlag(f, "max-connections", 1024, 1)!;
    const useFront = frontEnabled(f);
    if (!useFront && (f.values["header-timeout"] ?? f.values["max-connections"]) !== undefined) {
      throw new TypeError(
        "tagstream serve: --header-timeout and --max-connections are enforced by the TCP front; " +
          "drop --no-front to use them",
      );
    }
    // one process at a time writes a state directory: refused, before it is opened, if another
    // one does (the lock is held until run returns, or the process ends)
    let lock: StateDirLock | undefined;
    using _release = { [Symbol.dispose]: () => lock?.release() };
    let service: ServiceHandle;
    let factory: EstimatorFactory;
    // set once the server runs: a dead learner thread stops it (exit status 1)
    let onFailure = (_message: string): void => {};
    if (f.values["same-thread"]) {
      const options = await serviceOptionsFromFlags(f);
      factory = options.factory;
      lock = await lockStateDir(stateDir, "serve");
      const s = await LearningService.open(options).catch((e) => {
        throw namedStateDirError(namedCheckpointError(e, stateDir), stateDir);
      });
      try {
        refuseChangedSettings(f, s.learner, stateDir);
        await s.start();
      } catch (e) {
        await s.stop().catch((stopError) =>
          noteAlsoFailed("stopping the service", namedStateDirError(stopError, stateDir))
        );
        throw namedStateDirError(e, stateDir);
      }
      service = s;
    } else {
      // the learner thread builds the service's options from the same flags
      factory = await loadFactory(stringFlag(f, "model", DEFAULT_MODEL)!);
      // (the learner thread checks the service's flags: a bad one is found after this)
      lock = await lockStateDir(stateDir, "serve");
      service = await LearnerThread.open({
        workerUrl: new URL("./serve_learner.ts", import.meta.url),
        init: args,
        factory,
        onFailure: (message) => onFailure(message),
        ...(f.values["no-label-index"] === true ? { labelIndex: { enabled: false } } : {}),
      }).catch((e) => {
        // an OS error on a file of the state directory (the thread's error, rebuilt)
        throw namedStateDirError(e, stateDir);
      });
    }
    // every growth limit at once, with the model's sizes (the refusals name one flag at a time)
    log(growthLimitsLine(growthLimitsFromFlags(f), modelSizes(service)));
    // A background failure must never take the server down.
    globalThis.addEventListener("unhandledrejection", (e) => {
      e.preventDefault();
      log(`unhandled rejection: ${(e.reason as Error)?.message ?? String(e.reason)}`);
    });
    // the TCP front's counters, once it listens, under "front" in /metrics
    let frontStats: TcpFrontStats | undefined;
    // set as the stop begins: from then on the app answers as a stopping service does
    let stopBegun = false;
    const app = createApp({
      service: stoppingView(service, () => stopBegun),
      token,
      publicRead: f.values["public-read"] === true,
      ...limits,
      extraMetrics: () => frontStats ? { front: { ...frontStats } } : {},
    });
    // Signals are handled from before the listening line: a supervisor may stop the server as
    // soon as it reads it.
    let stop: () => Promise<void> = () => Promise.resolve();
    let signalled = false;
    let stopping: Promise<void> | undefined;
    const onSignal = () => {
      if (stopping !== undefined) Deno.exit(130); // a second signal: give up at once
      signalled = true;
      stop().catch(() => {}); // (its failure is reported by run, which awaits the same stop)
    };
    Deno.addSignalListener("SIGTERM", onSignal);
    Deno.addSignalListener("SIGINT", onSignal);
    const announce = (addr: Deno.NetAddr) =>
      console.log(JSON.stringify({
        event: "listening",
        // an IPv6 address is bracketed in a URL (http://[::1]:8080)
        url: `http://${
          addr.hostname.includes(":") ? `[${addr.hostname}]` : addr.hostname
        }:${addr.port}`,
        port: addr.port,
        model: factory.kind,
        stateDir,
        eventsApplied: service.applied,
      }));
    const onError = (e: unknown) => {
      log(`request failed: ${(e as Error)?.message ?? String(e)}`);
      return Response.json({ error: "internal error" }, { status: 500 });
    };
    // the requests whose answers are not given yet (the stop waits for them, see there)
    let handling = 0;
    let allAnswered = () => {};
    const handle = (request: Request): Response | Promise<Response> => {
      handling++;
      const answered = () => {
        if (--handling === 0) allAnswered();
      };
      let r: Response | Promise<Response>;
      try {
        r = app.fetch(request);
      } catch (e) {
        answered();
        throw e;
      }
      if (r instanceof Promise) return r.finally(answered);
      answered();
      return r;
    };
    // With the front (src/service/tcp_front.ts, the default), Deno.serve listens on a unix
    // socket in a private temporary directory and the front holds the public port, timing
    // request heads out and capping connections.
    let socketDir: string | undefined;
    const listen = async (): Promise<{ server: Deno.HttpServer; front?: TcpFront }> => {
      if (!useFront) {
        return { server: Deno.serve({ port, hostname, onListen: announce, onError }, handle) };
      }
      socketDir = await Deno.makeTempDir({ prefix: "tagstream-" });
      const path = `${socketDir}/http.sock`;
      const server = Deno.serve({ path, onListen() {}, onError }, handle);
      try {
        const front = TcpFront.listen({
          hostname,
          port,
          backend: { path },
          headerTimeoutMs: headerTimeoutS * 1000,
          maxConnections,
          log,
        });
        frontStats = front.stats;
        announce(front.addr);
        return { server, front };
      } catch (e) {
        // (the front's error is the one reported: a failed shutdown must not replace it)
        await server.shutdown().catch((shutdownError) =>
          noteAlsoFailed("shutting the server down", shutdownError)
        );
        await removeSocketDir();
        throw e;
      }
    };
    const removeSocketDir = () =>
      socketDir === undefined
        ? Promise.resolve()
        : Deno.remove(socketDir, { recursive: true }).catch(() => {});
    let server: Deno.HttpServer<Deno.Addr>;
    let front: TcpFront | undefined;
    try {
      ({ server, front } = await listen());
    } catch (e) {
      Deno.removeSignalListener("SIGTERM", onSignal);
      Deno.removeSignalListener("SIGINT", onSignal);
      await service.stop().catch((stopError) =>
        noteAlsoFailed("stopping the service", namedStateDirError(stopError, stateDir))
      );
      if (e instanceof Deno.errors.AddrInUse) {
        throw new Error(
          `tagstream serve: port ${port} on ${hostname} is already in use (another server, or ` +
            `an earlier tagstream serve still running?); pick another with --port P, or --port 0 ` +
            `for a free one`,
        );
      }
      throw new Error(
        `tagstream serve: cannot listen on --hostname ${hostname} --port ${port}: ` +
          (e as Error).message,
      );
    }
    const endProgress = f.values.quiet ? undefined : showProgress(service, new Progress());
    // resolves when the stop begins (the server may not finish if its shutdown fails)
    let stopRequested = () => {};
    const stopBegins = new Promise<void>((resolve) => (stopRequested = resolve));
    // The server's shutdown: it waits for every connection to end, and (Deno 2.9.6) a request
    // answered before its body has all arrived keeps its connection until the body does, for
    // ever if the client stalls. So it is awaited until every request in flight has its answer
    // (the bodies still arriving are cut within STOP_CHECK_MS), then STOP_FLUSH_MS more for the
    // answers to be sent; the connections still open then are closed (by the front's close, or
    // by the process's exit).
    const shutDown = async () => {
      const shutdown = server.shutdown();
      shutdown.catch(() => {}); // (awaited below; a failure after the grace no longer matters)
      let timer: ReturnType<typeof setTimeout> | undefined;
      const flushed = new Promise<"flushed">((resolve) => {
        const afterAnswers = () => {
          timer ??= setTimeout(() => resolve("flushed"), STOP_FLUSH_MS);
        };
        if (handling === 0) afterAnswers();
        else allAnswered = afterAnswers;
      });
      try {
        if (await Promise.race([shutdown, flushed]) === "flushed") {
          log(
            "stopping: connections still open after their answers (a body that never finished " +
              "arriving, or an answer still being sent) are closed",
          );
        }
      } finally {
        clearTimeout(timer);
        allAnswered = () => {};
      }
    };
    stop = () => {
      stopping ??= (async () => {
        log("stopping: finishing requests, writing the last checkpoint");
        // bodies still arriving are cut (503) from here on, within STOP_CHECK_MS
        stopBegun = true;
        // every step runs even if one before it failed: the service's stop above all (the last
        // checkpoint, the learner thread and the sources)
        try {
          await runEveryStep([
            ["closing the TCP front to new connections", () => front?.stopAccepting()],
            ["shutting the server down", shutDown],
            ["closing the TCP front", () => front?.close()],
            ["removing the socket directory", removeSocketDir],
            ["stopping the service", () => service.stop()],
          ]);
        } finally {
          endProgress?.();
        }
        log(`stopped after ${service.applied} events applied`);
      })();
      stopRequested();
      return stopping;
    };
    let failed: string | undefined;
    onFailure = (message) => {
      failed = message;
      log(`${message}; stopping (everything acknowledged is on disk: restart to resume)`);
      stop().catch(() => {}); // (reported by run, as above)
    };
    if (signalled) stop().catch(() => {});
    await Promise.race([server.finished, stopBegins]);
    try {
      await stop();
    } finally {
      Deno.removeSignalListener("SIGTERM", onSignal);
      Deno.removeSignalListener("SIGINT", onSignal);
    }
    return failed === undefined ? 0 : 1;
  },
};
