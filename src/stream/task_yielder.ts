/**
 * A turnstile for long synchronous work on a JavaScript thread of the service (ingesting
 * `/events` bodies, a followed file): such work runs in slices and calls
 * {@linkcode TaskYielder.yield} between them, so that what arrived meanwhile (HTTP requests,
 * the serving thread's messages, finished file writes, timers) gets a turn.
 *
 * @module
 */

const EMPTY = new Uint8Array(0);

/**
 * Gives waiting work a turn between slices of long synchronous work, one slice per turn
 * whatever the number of tasks slicing.
 *
 * - **One slice per turn.** Each yielding task waits for a turn; a turn releases one waiting
 *   task (first come, first served) and the next turn is only scheduled then. Without the
 *   turnstile, N concurrent `/events` bodies each ran a slice between two polls for I/O.
 * - **Which turn.** A turn is the round trip of a tiny asynchronous operation that Deno runs
 *   on its blocking pool (a SHA-1 of zero bytes): while it is out, the event loop has nothing
 *   ready, so it polls for I/O. On Deno 2.9.5 the cheaper-looking turns do not do that:
 *   against a chain of 1 ms slices, `wrk` with 64 connections got 41 requests/s through with
 *   MessageChannel turns (the service used them before, with a timer turn every 20 ms),
 *   7,600/s with `setImmediate`, 36,000/s with this turn and 65,000/s with `setTimeout(0)`;
 *   but a timer turn also leaves the thread idle for about 2 ms when nothing is waiting, so
 *   the slices got 31% of an idle thread against 90% with this turn. In the service: events
 *   learned 29-31k/s against 25-26k/s with message turns, and no event-loop stall over 10 ms
 *   (20 ms stalls before). `tests/stream/task_yielder_test.ts` checks that an HTTP request is
 *   answered during a chain of turns.
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
 * y.close();
 * console.log(order.join(" ")); // a0 b0 a1 b1
 * ```
 */
export class TaskYielder {
  #waiting: (() => void)[] = [];
  #scheduled = false;
  #closed = false;
  /** Turns taken so far. */
  turns = 0;

  /** Tasks waiting for their turn. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** Resolves at this task's turn (at once after {@linkcode TaskYielder.close}). */
  yield(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.#waiting.push(resolve);
      if (!this.#scheduled) this.#schedule();
    });
  }

  #schedule(): void {
    this.#scheduled = true;
    crypto.subtle.digest("SHA-1", EMPTY).then(this.#turn, this.#turn);
  }

  #turn = (): void => {
    this.#scheduled = false;
    if (this.#closed) return;
    this.turns++;
    const next = this.#waiting.shift();
    // The next turn is a later round trip: it comes after this slice and what arrived meanwhile.
    if (this.#waiting.length > 0) this.#schedule();
    next?.();
  };

  /** Releases every waiting task; later yields resolve at once. */
  close(): void {
    this.#closed = true;
    for (const w of this.#waiting.splice(0)) w();
  }
}
