/**
 * The bytes of request bodies held at once are capped (`maxBodyBytesInFlight`): bodies are held
 * in memory while they arrive and are applied, so many large bodies sent slowly could exhaust
 * the serving process's memory. Past the cap a request with a body is answered 503 with
 * `Retry-After` at once, naming the limit; requests without a body, and a body alone, still
 * pass; once the held body is answered its bytes are free again.
 */
import { createApp } from "../../src/service/http_app.ts";
import { LearningService } from "../../src/service/service.ts";
import { assert, assertEquals, plantedEvents, serviceOptions, withTempDir } from "./helpers.ts";
import { assertThrowsMsg } from "../helpers.ts";

Deno.test("bodies in flight past maxBodyBytesInFlight: 503 with Retry-After naming the limit; freed once answered", async () => {
  await withTempDir(async (dir) => {
    const s = await LearningService.open(serviceOptions(dir));
    try {
      const app = createApp({ service: s, maxBodyBytesInFlight: 1000 });
      const line = new TextEncoder().encode(plantedEvents(1)[0] + "\n");
      // a body that has not all arrived: 800 bytes declared, held until `finish`
      let finish!: () => void;
      const held = new ReadableStream<Uint8Array>({
        start(c) {
          finish = () => {
            const rest = new Uint8Array(800 - line.length).fill(32); // JSON whitespace
            c.enqueue(line);
            c.enqueue(rest);
            c.close();
          };
        },
      });
      const first = app.request("/events", {
        method: "POST",
        body: held,
        headers: { "content-length": "800" },
      });
      const second = await app.request("/predict", {
        method: "POST",
        body: '{"indices": [1], "k": 1}'.padEnd(300),
        headers: { "content-length": "300" },
      });
      assertEquals(second.status, 503);
      assertEquals(second.headers.get("retry-after"), "1");
      const error = (await second.json()).error as string;
      assert(/hold 800 bytes.*300 .*limit of 1000 bytes of bodies in flight/.test(error), error);
      // no body: not held up
      const health = await app.request("/health");
      assertEquals(health.status, 200);
      await health.body?.cancel();
      finish();
      const r = await first;
      assertEquals(r.status, 200);
      assertEquals((await r.json()).accepted, 1);
      // the bytes are free again; and one body larger than the limit alone passes
      const again = await app.request("/events", {
        method: "POST",
        body: plantedEvents(40, 1).join("\n"),
      });
      assertEquals(again.status, 200);
      assertEquals((await again.json()).accepted, 40);
    } finally {
      await s.stop();
    }
  });
});

Deno.test("createApp refuses a maxBodyBytesInFlight that is not an integer >= 1, naming it", async () => {
  await withTempDir(async (dir) => {
    const s = await LearningService.open(serviceOptions(dir));
    try {
      for (const bad of [0, -1, 1.5, NaN]) {
        await assertThrowsMsg(
          () => createApp({ service: s, maxBodyBytesInFlight: bad }),
          RangeError,
          "createApp: option maxBodyBytesInFlight must be an integer in [1, 9007199254740991], " +
            `got ${bad}`,
        );
      }
    } finally {
      await s.stop();
    }
  });
});

Deno.test("by default 256 MiB of bodies are held at once: 32 bodies of 8 MiB arriving, a 33rd is refused at once", async () => {
  await withTempDir(async (dir) => {
    const s = await LearningService.open(serviceOptions(dir));
    const streams: ReadableStreamDefaultController<Uint8Array>[] = [];
    const pending: Promise<Response>[] = [];
    // (a short body timeout: without the cap the 33rd would wait for its body, then get a 408)
    const app = createApp({ service: s, bodyTimeoutMs: 2000 });
    const held = () =>
      app.request("/events", {
        method: "POST",
        body: new ReadableStream<Uint8Array>({ start: (c) => void streams.push(c) }),
        headers: { "content-length": String(8 << 20) },
      });
    try {
      for (let i = 0; i < 32; i++) pending.push(Promise.resolve(held()));
      const r = await held();
      assertEquals(r.status, 503);
      assertEquals(r.headers.get("retry-after"), "1");
      const error = (await r.json()).error as string;
      assert(error.includes(`limit of ${256 << 20} bytes of bodies in flight`), error);
    } finally {
      for (const c of streams) c.error(new Error("test over"));
      for (const p of pending) await (await p).body?.cancel();
      await s.stop();
    }
  });
});
