/**
 * Timers for the TCP front's `timers` option (`TcpFrontOptions.timers`) that go off only when a
 * test calls `fire`, as if the timeout had passed: no pause of a loaded machine fires them early
 * or late.
 *
 * @module
 */
import type { TcpFrontTimers } from "../../src/service/tcp_front.ts";

/** Timers that go off only when the test calls `fire` (as if the timeout had passed). */
export class ManualTimers implements TcpFrontTimers {
  #next = 1;
  /** The callbacks set and neither fired nor cleared, by handle. */
  readonly pending: Map<number, () => void> = new Map();
  /** Schedules `fn` until `fire` (the delay is ignored). */
  set = (fn: () => void): number => {
    const handle = this.#next++;
    this.pending.set(handle, fn);
    return handle;
  };
  /** Cancels a pending callback (a fired or cleared handle is ignored). */
  clear = (handle: unknown): void => {
    this.pending.delete(handle as number);
  };
  /** Fires every pending timer. */
  fire(): void {
    const due = [...this.pending.values()];
    this.pending.clear();
    for (const fn of due) fn();
  }
}
