// The learning service's library API at its boundary (src/service/service_options.ts), as a
// program embedding the service calls it instead of `tagstream serve`: unknown option keys
// (typos) are a TypeError naming the known keys, values of the wrong type ("false" for a
// boolean, "8" for a number) a TypeError, values out of range (NaN, Infinity, fractions, sizes
// that would allocate gigabytes, delays longer than a timer keeps) a RangeError, each naming the
// function and the option, and all before anything is opened, created or started.
import { factory as pop } from "../../src/models/popularity/mod.ts";
import { StreamLearner } from "../../src/service/learner.ts";
import { LearningService } from "../../src/service/service.ts";
import { createApp } from "../../src/service/http_app.ts";
import { ReplicaIndexer } from "../../src/service/replica_index.ts";
import { LearnerThread } from "../../src/service/learner_thread.ts";
import { assert, assertEquals, assertThrowsMsg, serviceOptions, withTempDir } from "./helpers.ts";

// Values a JavaScript caller (or JSON) can hand over where TypeScript would not let them.
// deno-lint-ignore no-explicit-any
const loose = (v: unknown): any => v;

Deno.test("StreamLearner.create: typos, strings and sizes that would allocate gigabytes are refused", async () => {
  const create = (o: unknown) => () => StreamLearner.create(pop, loose(o));
  await assertThrowsMsg(
    create({ batchsize: 8 }),
    TypeError,
    'StreamLearner.create: unknown option "batchsize" (known: batchSize, windowSize,',
  );
  await assertThrowsMsg(
    create({ batchSize: "8" }),
    TypeError,
    'StreamLearner.create: option batchSize must be an integer in [1, 65536], got "8"',
  );
  for (const batchSize of [0, -1, 1.5, NaN, Infinity, 1e12]) {
    await assertThrowsMsg(create({ batchSize }), RangeError, `batchSize must be an integer`);
  }
  // the prequential window is two Float32Arrays of windowSize: 2^31 asked for 16 GiB
  for (const windowSize of [0, 2 ** 31, 1e12, NaN]) {
    await assertThrowsMsg(
      create({ windowSize }),
      RangeError,
      `StreamLearner.create: option windowSize must be an integer in [1, 16777216], got ${windowSize}`,
    );
  }
  await assertThrowsMsg(create({ dedupWindow: "5" }), TypeError, "option dedupWindow must be");
  await assertThrowsMsg(
    create({ limits: { maxLineByte: 10 } }),
    TypeError,
    'StreamLearner.create: limits: unknown option "maxLineByte" (known: featureKeys,',
  );
  await assertThrowsMsg(
    create({ limits: { maxLineBytes: "10" } }),
    TypeError,
    'option limits.maxLineBytes must be an integer in [1, 2147483647], got "10"',
  );
  await assertThrowsMsg(create({ limits: null }), TypeError, "option limits must be an object");
  await assertThrowsMsg(
    create({ modelOptions: "rank=4" }),
    TypeError,
    'StreamLearner.create: option modelOptions must be an object, got "rank=4"',
  );
  await assertThrowsMsg(create(null), TypeError, "StreamLearner.create: options must be an object");
  // what the CLI and the examples pass is still taken
  const l = StreamLearner.create(pop, {
    batchSize: 1 << 16,
    windowSize: 1 << 24,
    dedupWindow: 0,
    limits: {
      featureKeys: "name",
      maxFeatures: 2 ** 31 - 1,
      maxLineBytes: 16,
      strictFields: false,
    },
    labelNames: ["a"],
    modelOptions: { seed: 0 },
  });
  assertEquals([l.batchSize, l.window.size, l.parser.limits.maxLineBytes], [1 << 16, 1 << 24, 16]);
});

Deno.test("LearningService.open: bad options are refused by name before the state directory is touched", async () => {
  await withTempDir(async (root) => {
    const dir = `${root}/state`;
    const open = (extra: Record<string, unknown>) => () =>
      LearningService.open(loose({ ...serviceOptions(dir), ...extra }));
    await assertThrowsMsg(
      open({ checkpointEvry: 10 }),
      TypeError,
      'LearningService.open: unknown option "checkpointEvry" (known: batchSize,',
    );
    await assertThrowsMsg(open({ batchsize: 8 }), TypeError, 'unknown option "batchsize"');
    // a delay longer than 2^31-1 ms (or Infinity) made a timer that fired at once, forever
    for (const checkpointSeconds of [Infinity, 1e12, -1, NaN]) {
      await assertThrowsMsg(
        open({ checkpointSeconds }),
        RangeError,
        `LearningService.open: option checkpointSeconds must be a finite number in [0, 2147483.647], got ${checkpointSeconds}`,
      );
    }
    await assertThrowsMsg(
      open({ flushMs: Infinity }),
      RangeError,
      "option flushMs must be a finite number in [0, 2147483647], got Infinity",
    );
    // NaN never checkpointed by count
    for (const checkpointEvery of [NaN, -1, 1.5]) {
      await assertThrowsMsg(
        open({ checkpointEvery }),
        RangeError,
        `option checkpointEvery must be an integer in [0, ${Number.MAX_SAFE_INTEGER}], got ${checkpointEvery}`,
      );
    }
    // 0 (no checkpoints) would keep the write-ahead log and the Redis entries forever
    await assertThrowsMsg(
      open({ checkpointEvery: 0 }),
      TypeError,
      "LearningService.open: option checkpointEvery 0 (no checkpoints) needs wal: false " +
        "(checkpoints release the write-ahead log), got wal: true (the default)",
    );
    await assertThrowsMsg(
      open({ checkpointEvery: 0, wal: true }),
      TypeError,
      "needs wal: false (checkpoints release the write-ahead log), got wal: true",
    );
    await assertThrowsMsg(
      open({ checkpointEvery: 0, wal: false, redis: { url: "redis://127.0.0.1:1" } }),
      TypeError,
      "option checkpointEvery 0 (no checkpoints) needs no redis (checkpoints acknowledge its entries)",
    );
    await assertThrowsMsg(open({ checkpointEvery: "100" }), TypeError, "checkpointEvery");
    // "false" is truthy: it turned a destructive repair on
    await assertThrowsMsg(
      open({ repair: "false" }),
      TypeError,
      'LearningService.open: option repair must be true or false, got "false"',
    );
    await assertThrowsMsg(open({ wal: "false" }), TypeError, "option wal must be true or false");
    await assertThrowsMsg(open({ retryAfterSeconds: NaN }), RangeError, "retryAfterSeconds");
    await assertThrowsMsg(open({ validationEvents: 1e12 }), RangeError, "validationEvents");
    await assertThrowsMsg(open({ windowSize: 2 ** 31 }), RangeError, "option windowSize must");
    await assertThrowsMsg(
      open({ growth: { maxLabel: 1 } }),
      TypeError,
      'LearningService.open: growth: unknown option "maxLabel"',
    );
    // refused before connecting (it was a connection error, the typo unseen)
    await assertThrowsMsg(
      open({ redis: { url: "redis://127.0.0.1:1", kye: "events" } }),
      TypeError,
      'LearningService.open: redis: unknown option "kye" (known: url, key,',
    );
    await assertThrowsMsg(
      open({ redis: { url: "redis://127.0.0.1:1", blockMs: Infinity } }),
      RangeError,
      "option blockMs must be an integer in [0, 2147483647], got Infinity",
    );
    await assertThrowsMsg(open({ factory: undefined }), TypeError, "option factory must be");
    await assertThrowsMsg(
      () => LearningService.open(loose(null)),
      TypeError,
      "LearningService.open: options must be an object",
    );
    let exists = true;
    await Deno.stat(dir).catch(() => exists = false);
    assert(!exists, "nothing was created for a refused option");
  });
  // a missing stateDir wrote `./undefined/checkpoint.msgpack` in the working directory
  await assertThrowsMsg(
    () => LearningService.open(loose({ factory: pop, log: () => {} })),
    TypeError,
    "LearningService.open: option stateDir must be a non-empty string, got undefined",
  );
  let stray = true;
  await Deno.stat("undefined").catch(() => stray = false);
  assert(!stray, "no ./undefined directory");
});

Deno.test("LearningService.open: a state directory that is a file is named; good options still open", async () => {
  await withTempDir(async (root) => {
    const file = `${root}/state`;
    await Deno.writeTextFile(file, "not a directory");
    await assertThrowsMsg(
      () => LearningService.open(serviceOptions(file)),
      TypeError,
      `LearningService.open: option stateDir must be a directory, got the file '${file}'`,
    );
    const s = await LearningService.open(
      serviceOptions(`${root}/ok`, {
        checkpointEvery: 1,
        checkpointSeconds: 0,
        flushMs: 0,
        publishEvery: 0,
        repair: false,
        wal: true,
        validationEvents: 10,
        growth: { maxLabels: 100 },
        limits: { maxLineBytes: 1024 },
        dedupWindow: 0,
      }),
    );
    await s.start();
    const r = await s.ingestBody('{"features": {"0": 1}, "labels": ["a"]}\n', "http");
    assertEquals([r.accepted, r.durable], [1, true]);
    await s.stop();
  });
});

Deno.test("createApp: typos, publicRead 'false', NaN and endless timeouts are refused", async () => {
  await withTempDir(async (dir) => {
    const service = await LearningService.open(serviceOptions(dir));
    try {
      const app = (o: Record<string, unknown>) => () => createApp(loose({ service, ...o }));
      await assertThrowsMsg(
        app({ maxBodyByte: 10 }),
        TypeError,
        'createApp: unknown option "maxBodyByte" (known: service, token, publicRead,',
      );
      // "false" is truthy: reads went through without the token
      await assertThrowsMsg(
        app({ token: "t", publicRead: "false" }),
        TypeError,
        'createApp: option publicRead must be true or false, got "false"',
      );
      // NaN lifted the in-flight limit (inFlight >= NaN is never true)
      await assertThrowsMsg(
        app({ maxInFlight: NaN }),
        RangeError,
        "createApp: option maxInFlight must be an integer in [1, 2147483647], got NaN",
      );
      // the body timer fired at once: every POST answered 408
      await assertThrowsMsg(
        app({ bodyTimeoutMs: Infinity }),
        RangeError,
        "createApp: option bodyTimeoutMs must be a finite number in [0.001, 2147483647], got Infinity",
      );
      await assertThrowsMsg(app({ maxK: "10" }), TypeError, "option maxK must be an integer");
      await assertThrowsMsg(
        app({ token: 7 }),
        TypeError,
        "option token must be a non-empty string",
      );
      await assertThrowsMsg(
        () => createApp(loose({})),
        TypeError,
        "createApp: option service must",
      );
      const ok = createApp({ service, token: "t", publicRead: false, bodyTimeoutMs: 1 });
      assertEquals((await ok.request("/model")).status, 401);
    } finally {
      await service.stop();
    }
  });
});

Deno.test("ReplicaIndexer and LearnerThread.open: label-index options are checked before any worker starts", async () => {
  await assertThrowsMsg(
    () => new ReplicaIndexer(loose({ enabled: "false" })),
    TypeError,
    'ReplicaIndexer: option enabled must be true or false, got "false"',
  );
  await assertThrowsMsg(
    () => new ReplicaIndexer(loose({ minLabel: 10 })),
    TypeError,
    'ReplicaIndexer: unknown option "minLabel" (known: minLabels,',
  );
  await assertThrowsMsg(
    () => new ReplicaIndexer({ minIntervalMs: Infinity }),
    RangeError,
    "ReplicaIndexer: option minIntervalMs must be a finite number in [0, 2147483647], got Infinity",
  );
  // refused up front: no worker is started (the old code started one, whatever the options)
  const workerUrl = new URL("./no_such_worker.ts", import.meta.url);
  await assertThrowsMsg(
    () =>
      LearnerThread.open(
        loose({ workerUrl, init: [], factory: pop, labelIndex: { enabled: "false" } }),
      ),
    TypeError,
    'LearnerThread.open: labelIndex: option enabled must be true or false, got "false"',
  );
  await assertThrowsMsg(
    () => LearnerThread.open(loose({ workerUrl, init: [], factory: pop, onFailur: () => {} })),
    TypeError,
    'LearnerThread.open: unknown option "onFailur" (known: workerUrl, init, factory,',
  );
});
