/**
 * A turnstile for long synchronous work on a JavaScript thread of the service (ingesting
 * `/events` bodies, a followed file): such work runs in slices and calls
 * {@linkcode TaskYielder.yield} between them, so that what arrived meanwhile (HTTP requests,
 * the serving thread's messages, finished file writes, timers) gets a turn.
 *
 * @module
 */

const EMPTY = new Uint8Array(0);
const ONE = Uint8Array.of(1);

/**
 * A loopback TCP connection of this thread with itself: writing a byte on one end and reading
 * it on the other is a turn that only the event loop's poll for I/O readiness can complete, so
 * every turn polls for I/O (and so lets waiting HTTP requests in).
 */
class LoopbackTurn {
  /** Loopback connections of this thread open now. */
  static open = 0;
  readonly #tx: Deno.TcpConn;
  readonly #rx: Deno.TcpConn;
  readonly #buf = new Uint8Array(64);
  #closed = false;

  private constructor(tx: Deno.TcpConn, rx: Deno.TcpConn) {
    this.#tx = tx;
    this.#rx = rx;
  }

  /** Whether this thread may listen on 127.0.0.1 (asked without prompting). */
  static permitted(): boolean {
    return Deno.permissions.querySync({ name: "net", host: "127.0.0.1" }).state === "granted";
  }

  /** Opens the connection (see {@linkcode LoopbackTurn.permitted}). */
  static async connect(): Promise<LoopbackTurn> {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    try {
      const { port } = listener.addr as Deno.NetAddr;
      const [tx, rx] = await Promise.allSettled([
        Deno.connect({ hostname: "127.0.0.1", port }),
        listener.accept(),
      ]);
      if (tx.status === "rejected" || rx.status === "rejected") {
        // one end may have opened: close it rather than leak it
        if (tx.status === "fulfilled") tx.value.close();
        if (rx.status === "fulfilled") rx.value.close();
        throw tx.status === "rejected" ? tx.reason : (rx as PromiseRejectedResult).reason;
      }
      tx.value.setNoDelay(true);
      LoopbackTurn.open++;
      return new LoopbackTurn(tx.value, rx.value as Deno.TcpConn);
    } finally {
      listener.close();
    }
  }

  /** One round trip of a byte. */
  async take(): Promise<void> {
    await this.#tx.write(ONE);
    if ((await this.#rx.read(this.#buf)) === null) throw new Error("loopback connection closed");
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    LoopbackTurn.open--;
    for (const c of [this.#tx, this.#rx]) {
      try {
        c.close();
      } catch { /* already closed */ }
    }
  }
}

/**
 * How {@linkcode TaskYielder} takes its turns (see its doc).
 *
 * @example
 * ```ts
 * import { TaskYielder, type TurnKind } from "./task_yielder.ts";
 * const y = new TaskYielder("blocking-pool");
 * await y.yield();
 * const kind: TurnKind = y.turnKind;
 * console.log(kind); // "blocking-pool"
 * await y.close();
 * ```
 */
export type TurnKind = "loopback" | "timer" | "blocking-pool";

/**
 * Gives waiting work a turn between slices of long synchronous work, one slice per turn
 * whatever the number of tasks slicing.
 *
 * - **One slice per turn.** Each yielding task waits for a turn; a turn releases one waiting
 *   task (first come, first served) and the next turn is only scheduled then. Without the
 *   turnstile, N concurrent `/events` bodies each ran a slice between two polls for I/O.
 * - **Which turn.** A turn must make the event loop poll for I/O readiness, and on Deno 2.9.5
 *   the cheap-looking turns do not: against a chain of 1 ms slices, a sequential HTTP client
 *   in another process got 32 requests/s through with MessageChannel turns, and `wrk` with 64
 *   connections 7,600/s with `setImmediate`. A `setTimeout(0)` turn does poll, but leaves the
 *   thread idle for about 2 ms when nothing is waiting. So a turn is the round trip of one byte
 *   over a loopback TCP connection of the thread with itself (`"loopback"`): only the poll for
 *   I/O readiness completes it, and it costs about 30 µs. The sequential client got a request
 *   answered on 99% of the turns, and still on 87-94% with three busy processes competing for
 *   the two cores. In `serve --same-thread` under `/events` and `/predict` load together, the
 *   /predict p99 went from 20.0-22.7 ms to 9.7-10.3 ms.
 * - **While the connection opens**, a turn is a `setTimeout(0)` (`"timer"`): it always polls
 *   for I/O, which the connection itself needs.
 * - **Without the permission** to listen on 127.0.0.1 (or with the `"blocking-pool"` kind), a
 *   turn is the round trip of a SHA-1 of zero bytes on Deno's blocking pool. It
 *   also polls when the thread goes idle before the hash is back, which is the common case on
 *   an idle machine (a request answered on 96-99% of the turns), but not when the hash wins the
 *   race: with three busy processes on the two cores, 9-100% of the turns.
 *
 * `tests/service/task_yielder_test.ts` checks that requests from another process are answered
 * during a chain of loopback turns, and the fallback without the permission.
 *
 * {@linkcode TaskYielder.close} releases every waiter; later yields resolve at once.
 *
 * @example
 * ```ts
 * import { TaskYielder } from "./task_yielder.ts";
 * const y = new TaskYielder();
 * const order: string[] = [];
 * const task = async (name: string) => {
 *   for (let slice = 0; slice < 2; slice++) {
 *     order.push(`${name}${slice}`);
 *     await y.yield();
 *   }
 * };
 * await Promise.all([task("a"), task("b")]);
 * await y.close();
 * console.log(order.join(" ")); // a0 b0 a1 b1
 * ```
 */
export class TaskYielder {
  #waiting: (() => void)[] = [];
  #inFlight: Promise<void> | undefined;
  #closed = false;
  #loopback: LoopbackTurn | undefined;
  #opening: Promise<void> | undefined;
  #connecting = false;
  /** Turns taken so far. */
  turns = 0;

  /** Loopback connections of yielders of this thread open now (one per yielder at most). */
  static get openConnections(): number {
    return LoopbackTurn.open;
  }

  /**
   * @param kind `"loopback"` (default): loopback turns once the connection is open, when this
   *   thread may listen on 127.0.0.1; `"blocking-pool"`: never open a connection.
   */
  constructor(readonly kind: TurnKind = "loopback") {}

  /** Tasks waiting for their turn. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** The kind of the turns taken now. */
  get turnKind(): TurnKind {
    if (this.#loopback !== undefined) return "loopback";
    return this.#connecting ? "timer" : "blocking-pool";
  }

  /** Resolves at this task's turn (at once after {@linkcode TaskYielder.close}). */
  yield(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.#waiting.push(resolve);
      if (this.#inFlight === undefined) this.#schedule();
    });
  }

  #schedule(): void {
    if (this.kind === "loopback" && this.#opening === undefined) {
      if (LoopbackTurn.permitted()) {
        this.#connecting = true;
        this.#opening = LoopbackTurn.connect().then(
          (l) => {
            if (this.#closed) l.close();
            else this.#loopback = l;
          },
          () => {},
        ).finally(() => (this.#connecting = false));
      } else {
        this.#opening = Promise.resolve(); // asked once: blocking-pool turns
      }
    }
    const loopback = this.#loopback;
    let trip: Promise<void>;
    if (loopback !== undefined) {
      trip = loopback.take().catch(() => {
        // a broken connection: blocking-pool turns from now on
        loopback.close();
        if (this.#loopback === loopback) this.#loopback = undefined;
      });
    } else if (this.#connecting) {
      // while the connection opens: timer turns, which always poll for I/O (the connection
      // itself needs that; a blocking-pool turn can starve it on a loaded machine)
      trip = new Promise<void>((r) => setTimeout(r, 0));
    } else {
      trip = crypto.subtle.digest("SHA-1", EMPTY).then(() => {});
    }
    this.#inFlight = trip.then(this.#turn);
  }

  #turn = (): void => {
    this.#inFlight = undefined;
    if (this.#closed) return;
    this.turns++;
    const next = this.#waiting.shift();
    // The next turn is a later round trip: it comes after this slice and what arrived meanwhile.
    if (this.#waiting.length > 0) this.#schedule();
    next?.();
  };

  /**
   * Releases every waiting task (later yields resolve at once), and resolves once the turn in
   * flight is over and the loopback connection closed.
   */
  async close(): Promise<void> {
    this.#closed = true;
    for (const w of this.#waiting.splice(0)) w();
    this.#loopback?.close();
    this.#loopback = undefined;
    await Promise.all([this.#inFlight, this.#opening]);
  }
}
