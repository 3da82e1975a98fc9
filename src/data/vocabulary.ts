/**
 * Growing name ↔ index vocabularies for feature and label names that appear mid-stream.
 *
 * @module
 */
import { checkOptionKeys, numberOption } from "./option_check.ts";

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
 * How a {@linkcode Vocabulary} names itself and its size limit in error messages.
 *
 * @example
 * ```ts
 * import { Vocabulary, type VocabularyOptions } from "./vocabulary.ts";
 * const o: VocabularyOptions = { what: "label", limitName: "--max-labels" };
 * try {
 *   new Vocabulary(["a", "b"], 1, o);
 * } catch (e) {
 *   console.log((e as Error).message);
 *   // the label vocabulary is full: 2 names given, more than the 1 allowed (--max-labels 1)
 * }
 * ```
 */
export interface VocabularyOptions {
  /** What the names are (`"label"`, `"feature"`); messages then say "the label vocabulary". */
  what?: string;
  /** The setting that bounds the size (e.g. `"--max-labels"`), named with the limit. */
  limitName?: string;
}

/**
 * A {@linkcode Vocabulary} refusing a name: it is `"full"` (its `maxSize` is reached) or the
 * initial names hold a `"duplicate"`. Carries the data a caller needs to name the place, e.g.
 * the line of a label file (`position + 1` when the names are one per line).
 *
 * @example
 * ```ts
 * import { Vocabulary, VocabularyError } from "./vocabulary.ts";
 * try {
 *   new Vocabulary(["a", "b", "a"]);
 * } catch (e) {
 *   if (e instanceof VocabularyError) console.log(e.reason, e.entry, e.firstPosition, e.position);
 *   // duplicate a 0 2
 * }
 * ```
 */
export class VocabularyError extends RangeError {
  /** Why the name was refused. */
  readonly reason: "full" | "duplicate";
  /** The refused name. */
  readonly entry: string;
  /** 0-based position of the name among the constructor's names; -1 when added later. */
  readonly position: number;
  /** Duplicates: 0-based position of the first occurrence (else -1). */
  readonly firstPosition: number;
  /** The size limit (Infinity when none). */
  readonly maxSize: number;

  /**
   * @param message the full message
   * @param data why, which name, where and the limit
   */
  constructor(
    message: string,
    data: {
      reason: "full" | "duplicate";
      entry: string;
      position: number;
      firstPosition?: number;
      maxSize: number;
    },
  ) {
    super(message);
    this.name = "RangeError";
    this.reason = data.reason;
    this.entry = data.entry;
    this.position = data.position;
    this.firstPosition = data.firstPosition ?? -1;
    this.maxSize = data.maxSize;
  }
}

/** A name as shown in messages: quoted, at most 40 characters. */
function shown(name: string): string {
  return `'${name.length > 40 ? name.slice(0, 37) + "..." : name}'`;
}

/**
 * An append-only map from names to dense indices `0, 1, 2, ...` in order of first appearance.
 * Indices never change once given, so a model's columns stay valid while the vocabulary grows
 * (only {@linkcode Vocabulary.truncate} takes back names just added, before any use).
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
  readonly #what: string | undefined;
  readonly #limitName: string | undefined;
  /** When set, {@linkcode Vocabulary.idOf} refuses to grow past this many names. */
  readonly maxSize: number;

  /**
   * A vocabulary holding `names`.
   *
   * @param names initial names, given indices in order (duplicates, and more names than
   *   `maxSize`, are a {@linkcode VocabularyError})
   * @param maxSize largest number of names (default unbounded)
   * @param options what the names are and the limit's setting, for messages
   * @throws {TypeError} for names that are not strings, or an unknown option
   * @throws {RangeError} for a `maxSize` that is not an integer in [0, 2^31 − 1] or Infinity
   */
  constructor(names: Iterable<string> = [], maxSize = Infinity, options: VocabularyOptions = {}) {
    if (maxSize !== Infinity) {
      numberOption("Vocabulary", "maxSize", maxSize, 0, 0, 2 ** 31 - 1, true);
    }
    checkOptionKeys("Vocabulary", options, ["what", "limitName"]);
    this.maxSize = maxSize;
    this.#what = options.what;
    this.#limitName = options.limitName;
    if (typeof names === "string" || typeof names?.[Symbol.iterator] !== "function") {
      throw new TypeError(`Vocabulary: names must be an iterable of strings, got ${typeof names}`);
    }
    const list = Array.isArray(names) ? names as readonly string[] : [...names];
    if (list.length > maxSize) {
      throw new VocabularyError(
        `${this.#full()}: ${list.length} names given, more than the ${maxSize} allowed${this.#limit()}`,
        { reason: "full", entry: list[maxSize], position: maxSize, maxSize },
      );
    }
    for (let i = 0; i < list.length; i++) {
      const n = list[i];
      if (typeof n !== "string") {
        throw new TypeError(`Vocabulary: name ${i} must be a string, got ${typeof n}`);
      }
      const first = this.#ids.get(n);
      if (first !== undefined) {
        throw new VocabularyError(
          `${
            this.#what === undefined ? "Vocabulary: duplicate name" : `duplicate ${this.#what} name`
          } ${shown(n)} (names ${first + 1} and ${i + 1})`,
          { reason: "duplicate", entry: n, position: i, firstPosition: first, maxSize },
        );
      }
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
   * @throws {VocabularyError} when adding would exceed `maxSize`
   */
  idOf(name: string, add: boolean): number {
    const id = this.#ids.get(name);
    if (id !== undefined) return id;
    if (!add) return -1;
    if (this.#names.length >= this.maxSize) {
      const why = `cannot add ${shown(name)} beyond ${this.maxSize} names${this.#limit()}`;
      throw new VocabularyError(`${this.#full()}: ${why}`, {
        reason: "full",
        entry: name,
        position: -1,
        maxSize: this.maxSize,
      });
    }
    return this.#add(name);
  }

  /**
   * Removes the names from index `size` on, the newest first: the undo of adding them, for a
   * caller refusing what added them before their indices were used anywhere (e.g. an event
   * refused after its parse). Costs one step per name removed.
   *
   * @throws {RangeError} when `size` is not an integer in [0, {@linkcode Vocabulary.size}]
   *
   * @example
   * ```ts
   * import { Vocabulary } from "./vocabulary.ts";
   * const v = new Vocabulary(["a"]);
   * v.idOf("b", true);
   * v.truncate(1);
   * console.log(v.names, v.idOf("b", false)); // [ "a" ] -1
   * console.log(v.idOf("c", true)); // 1
   * ```
   */
  truncate(size: number): void {
    const names = this.#names;
    if (!(Number.isInteger(size) && size >= 0 && size <= names.length)) {
      throw new RangeError(
        `Vocabulary.truncate: size must be an integer in [0, ${names.length}], got ${size}`,
      );
    }
    while (names.length > size) this.#ids.delete(names.pop()!);
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

  /** `Vocabulary is full`, or `the label vocabulary is full` when it says what it holds. */
  #full(): string {
    return this.#what === undefined ? "Vocabulary is full" : `the ${this.#what} vocabulary is full`;
  }

  /** ` (--max-labels N)` when the limit's setting is known, else empty. */
  #limit(): string {
    return this.#limitName === undefined ? "" : ` (${this.#limitName} ${this.maxSize})`;
  }

  #add(name: string): number {
    const id = this.#names.length;
    this.#names.push(name);
    this.#ids.set(name, id);
    return id;
  }
}
