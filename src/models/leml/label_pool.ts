/**
 * A bounded ring of recent positive-label occurrences, from which streaming LEML's local update
 * mode draws its sampled negatives: a uniform draw from the ring picks a label with probability
 * about its frequency in the recent stream, in O(1) and without any pass over the L labels (an
 * alias table or a cumulative sum over L would cost O(L) to maintain). Memory is the ring's
 * capacity whatever the stream's length; the state is a typed array plus two counters.
 *
 * @module
 */
import type { SmallRng } from "../../random/mod.ts";

/**
 * The ring.
 *
 * @example
 * ```ts
 * import { LabelPool } from "./label_pool.ts";
 * import { SmallRng } from "../../random/mod.ts";
 * const p = new LabelPool(4);
 * p.add(Int32Array.of(7, 7, 7, 2), 0, 4);
 * const rng = new SmallRng(1);
 * let sevens = 0;
 * for (let t = 0; t < 1000; t++) if (p.sample(rng) === 7) sevens++;
 * console.log(p.size, sevens > 600 && sevens < 900); // 4 true
 * ```
 */
export class LabelPool {
  /** The occurrences (the first `size` entries are live). */
  buffer: Int32Array;
  /** Next slot written. */
  pos = 0;
  /** Live entries (at most the capacity). */
  size = 0;

  /** @param capacity occurrences kept (at least 1). */
  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`LabelPool: capacity must be a positive integer, got ${capacity}`);
    }
    this.buffer = new Int32Array(capacity);
  }

  /**
   * Records the labels `labels[from .. to)` (the oldest occurrences are overwritten).
   *
   * @example
   * ```ts
   * import { LabelPool } from "./label_pool.ts";
   * const p = new LabelPool(2);
   * p.add(Int32Array.of(1, 2, 3), 0, 3);
   * console.log([...p.buffer], p.size); // [ 3, 2 ] 2
   * ```
   */
  add(labels: Int32Array, from: number, to: number): void {
    const buf = this.buffer, cap = buf.length;
    for (let p = from; p < to; p++) {
      buf[this.pos] = labels[p];
      this.pos = this.pos + 1 === cap ? 0 : this.pos + 1;
    }
    this.size = Math.min(cap, this.size + Math.max(0, to - from));
  }

  /**
   * A recorded label drawn uniformly (−1 when the ring is empty).
   *
   * @example
   * ```ts
   * import { LabelPool } from "./label_pool.ts";
   * import { SmallRng } from "../../random/mod.ts";
   * console.log(new LabelPool(3).sample(new SmallRng(0))); // -1
   * ```
   */
  sample(rng: SmallRng): number {
    return this.size === 0 ? -1 : this.buffer[rng.nextInt(this.size)];
  }

  /**
   * Restores the ring from a saved buffer and counters (the capacity is the buffer's length).
   *
   * @example
   * ```ts
   * import { LabelPool } from "./label_pool.ts";
   * const a = new LabelPool(3);
   * a.add(Int32Array.of(4, 5), 0, 2);
   * const b = LabelPool.restore(a.buffer.slice(), a.pos, a.size);
   * console.log(b.size, b.pos, [...b.buffer]); // 2 2 [ 4, 5, 0 ]
   * ```
   */
  static restore(buffer: Int32Array, pos: number, size: number): LabelPool {
    const p = new LabelPool(buffer.length);
    if (!(pos >= 0 && pos < buffer.length && size >= 0 && size <= buffer.length)) {
      throw new RangeError(
        `LabelPool.restore: pos ${pos} / size ${size} do not fit a ring of ${buffer.length}`,
      );
    }
    p.buffer = buffer;
    p.pos = pos;
    p.size = size;
    return p;
  }
}
