// The Deno Deploy example's GET /health while no model can be loaded: a 503 whose `error` is the
// reason itself (it was `String(e)`: "Error: GET …"), and a 401 from MODEL_URL — a learning
// service started without --public-read, the first thing the example's README warns about —
// says to start the service with --public-read.
import { appFor } from "../../examples/deno-deploy/app.ts";
import { ModelCache } from "../../sdk/serving.ts";
import { assertEquals } from "../helpers.ts";

function failing(message: string) {
  return appFor(new ModelCache({ id: message, fetch: () => Promise.reject(new Error(message)) }));
}

Deno.test("deno-deploy /health: the load error's message, with --public-read named on a 401", async () => {
  const cases: [string, string][] = [
    [
      "GET http://127.0.0.1:8080/model: 401 Unauthorized",
      "GET http://127.0.0.1:8080/model: 401 Unauthorized (MODEL_URL sends no token: start " +
      "tagstream serve with --public-read)",
    ],
    [
      "GET http://127.0.0.1:8080/model: 404 Not Found",
      "GET http://127.0.0.1:8080/model: 404 Not Found",
    ],
    ['no model in Deno KV at ["models","nope"]', 'no model in Deno KV at ["models","nope"]'],
  ];
  for (const [thrown, said] of cases) {
    const res = await failing(thrown).request("/health");
    assertEquals([res.status, await res.json()], [503, { ok: false, error: said }]);
  }
});
