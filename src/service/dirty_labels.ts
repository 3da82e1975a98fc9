/**
 * A set of label indices marked as changed since it was last taken: O(1) per mark, and taking
 * it costs what was marked (a flag per label and a list of the marked ones).
 *
 * @module
 */

/**
 * Labels whose value changed since the last {@linkcode DirtyLabels.take}.
 *
 * @example
 * ```ts
 * import { DirtyLabels } from "./dirty_labels.ts";
 * const d = new DirtyLabels();
 * d.mark(Int32Array.of(5, 2, 5));
 * console.log([...d.take()], d.take().length); // [ 2, 5 ] 0
 * ```
 */
export class DirtyLabels {
  #flag = new Uint8Array(0);
  #list: number[] = [];

  /** Marks `labels` (non-negative integers). */
  mark(labels: ArrayLike<number>): void {
    for (let i = 0; i < labels.length; i++) {
      const l = labels[i];
      if (l >= this.#flag.length) {
        const f = new Uint8Array(Math.max(l + 1, 2 * this.#flag.length, 64));
        f.set(this.#flag);
        this.#flag = f;
      }
      if (this.#flag[l] === 0) {
        this.#flag[l] = 1;
        this.#list.push(l);
      }
    }
  }

  /** The labels marked since the last call, increasing (a fresh array); clears the marks. */
  take(): Int32Array {
    const out = Int32Array.from(this.#list).sort();
    this.clear();
    return out;
  }

  /** Clears the marks. */
  clear(): void {
    for (const l of this.#list) this.#flag[l] = 0;
    this.#list = [];
  }
}
