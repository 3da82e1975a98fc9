/**
 * Growing name ↔ index vocabularies for feature and label names that appear mid-stream.
 *
 * @module
 */

/**
 * The JSON form of a {@linkcode Vocabulary} (for checkpoints): the names in index order.
 *
 * @example
 * ```ts
 * import type { VocabularyJSON } from "./vocabulary.ts";
 * const j: VocabularyJSON = { names: ["cat", "dog"] };
 * console.log(j.names.length); // 2
 * ```
 */
export interface VocabularyJSON {
  /** The names in index order. */
  names: string[];
}

/**
 * An append-only map from names to dense indices `0, 1, 2, ...` in order of first appearance.
 * Indices never change once given, so a model's columns stay valid while the vocabulary grows.
 *
 * @example
 * ```ts
 * import { Vocabulary } from "./vocabulary.ts";
 * const v = new Vocabulary(["a"]);
 * console.log(v.idOf("b", true), v.idOf("a", false), v.idOf("zzz", false), v.size); // 1 0 -1 2
 * ```
 */
export class Vocabulary {
  readonly #ids = new Map<string, number>();
  readonly #names: string[] = [];
  /** When set, {@linkcode Vocabulary.idOf} refuses to grow past this many names. */
  readonly maxSize: number;

  /**
   * A vocabulary holding `names`.
   *
   * @param names initial names, given indices in order (duplicates are an error)
   * @param maxSize largest number of names (default unbounded)
   */
  constructor(names: Iterable<string> = [], maxSize = Infinity) {
    this.maxSize = maxSize;
    for (const n of names) {
      if (this.#ids.has(n)) throw new RangeError(`Vocabulary: duplicate name '${n}'`);
      this.#add(n);
    }
  }

  /** Number of names. */
  get size(): number {
    return this.#names.length;
  }

  /** The names in index order (a read-only view; do not mutate). */
  get names(): readonly string[] {
    return this.#names;
  }

  /**
   * The index of `name`; when it is new, adds it if `add` is true (else returns -1).
   *
   * @throws {RangeError} when adding would exceed `maxSize`
   */
  idOf(name: string, add: boolean): number {
    const id = this.#ids.get(name);
    if (id !== undefined) return id;
    if (!add) return -1;
    return this.#add(name);
  }

  /** The name of index `id`, or undefined when out of range. */
  nameOf(id: number): string | undefined {
    return this.#names[id];
  }

  /** The JSON form (a copy of the names). */
  toJSON(): VocabularyJSON {
    return { names: this.#names.slice() };
  }

  /**
   * Rebuilds a vocabulary from its JSON form.
   *
   * @example
   * ```ts
   * import { Vocabulary } from "./vocabulary.ts";
   * const v = Vocabulary.fromJSON({ names: ["x", "y"] });
   * console.log(v.idOf("y", false)); // 1
   * ```
   */
  static fromJSON(json: VocabularyJSON): Vocabulary {
    if (!json || !Array.isArray(json.names) || json.names.some((n) => typeof n !== "string")) {
      throw new TypeError("Vocabulary.fromJSON: expected {names: string[]}");
    }
    return new Vocabulary(json.names);
  }

  #add(name: string): number {
    if (this.#names.length >= this.maxSize) {
      throw new RangeError(
        `Vocabulary is full: cannot add '${name.slice(0, 40)}' beyond ${this.maxSize} names`,
      );
    }
    const id = this.#names.length;
    this.#names.push(name);
    this.#ids.set(name, id);
    return id;
  }
}
