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
 * Names packed for a message between threads: one string of the names one after the other, and
 * where each ends in it (UTF-16 code units). A structured clone copies one flat string where a
 * list of 10⁶ names took 70-240 ms to clone in one go on the receiving thread.
 *
 * @example
 * ```ts
 * import { packNames, type PackedNames } from "./vocabulary.ts";
 * const p: PackedNames = packNames(["cat", "dog"]);
 * console.log(p.text, p.ends); // catdog Int32Array(2) [ 3, 6 ]
 * ```
 */
export interface PackedNames {
  /** The names, concatenated in index order. */
  text: string;
  /** Where name i ends in `text` (it starts where name i - 1 ends, or at 0). */
  ends: Int32Array;
}

/**
 * `names` as {@linkcode PackedNames} (read name by name with `text.slice`).
 *
 * @example
 * ```ts
 * import { packNames } from "./vocabulary.ts";
 * const { text, ends } = packNames(["a", "bc"]);
 * console.log(text.slice(ends[0], ends[1])); // bc
 * ```
 */
export function packNames(names: readonly string[]): PackedNames {
  const ends = new Int32Array(names.length);
  let at = 0;
  for (let i = 0; i < names.length; i++) ends[i] = at += names[i].length;
  return { text: names.join(""), ends };
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
  /** The names; while `#packed` is set, only those after the packed ones. */
  #names: string[] = [];
  /** Names adopted packed and not unpacked yet (indices `[0, #packed.ends.length)`). */
  #packed: PackedNames | undefined;
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
    return (this.#packed?.ends.length ?? 0) + this.#names.length;
  }

  /** The names in index order (a read-only view; do not mutate). */
  get names(): readonly string[] {
    this.#unpack();
    return this.#names;
  }

  /** Whether names adopted packed are still packed (no name → index map built yet). */
  get packed(): boolean {
    return this.#packed !== undefined;
  }

  /**
   * Takes `p`'s names (from another vocabulary: they must be distinct) as the names of this
   * empty vocabulary without unpacking them: {@linkcode Vocabulary.nameOf} and
   * {@linkcode Vocabulary.size} read them as they are, and only what needs a name's index
   * ({@linkcode Vocabulary.idOf}, {@linkcode Vocabulary.names}, ...) unpacks them, once (a
   * name twice is found then: a {@linkcode VocabularyError}). A replica that only predicts never
   * maps label names to indices: at 10⁶ labels the map took up to a second to build.
   *
   * @throws {RangeError} when this vocabulary has names, `p` is not packed names, or they are
   * more than `maxSize` (a {@linkcode VocabularyError})
   *
   * @example
   * ```ts
   * import { packNames, Vocabulary } from "./vocabulary.ts";
   * const v = new Vocabulary();
   * v.adoptPacked(packNames(["cat", "dog"]));
   * console.log(v.size, v.nameOf(1), v.packed, v.idOf("cat", false), v.packed); // 2 dog true 0 false
   * ```
   */
  adoptPacked(p: { text: string; ends: Int32Array }): void {
    if (this.size !== 0) {
      throw new RangeError(`Vocabulary.adoptPacked: the vocabulary has ${this.size} names already`);
    }
    if (
      p === null || typeof p !== "object" || typeof p.text !== "string" ||
      !(p.ends instanceof Int32Array)
    ) {
      throw new RangeError("Vocabulary.adoptPacked: expected {text: string, ends: Int32Array}");
    }
    let start = 0;
    for (let i = 0; i < p.ends.length; i++) {
      if (!(p.ends[i] >= start && p.ends[i] <= p.text.length)) {
        throw new RangeError(
          `Vocabulary.adoptPacked: name ${i} ends at ${p.ends[i]}, out of the text`,
        );
      }
      start = p.ends[i];
    }
    if (p.ends.length > this.maxSize) {
      throw new VocabularyError(
        `${this.#full()}: ${p.ends.length} names given, more than the ${this.maxSize} allowed${this.#limit()}`,
        { reason: "full", entry: "", position: this.maxSize, maxSize: this.maxSize },
      );
    }
    if (p.ends.length > 0) this.#packed = p;
  }

  /**
   * Adds names known to be new to this vocabulary (those another vocabulary added after the
   * names this one has): while the names are packed, without unpacking them to check (see
   * {@linkcode Vocabulary.adoptPacked}); otherwise as `idOf(name, true)` each, a name it has
   * already being a {@linkcode VocabularyError}.
   *
   * @throws {VocabularyError} past `maxSize`, or for a name it has (unpacked only)
   *
   * @example
   * ```ts
   * import { packNames, Vocabulary } from "./vocabulary.ts";
   * const v = new Vocabulary();
   * v.adoptPacked(packNames(["a"]));
   * v.addNew(["b"]);
   * console.log(v.size, v.nameOf(1), v.packed); // 2 b true
   * ```
   */
  addNew(names: readonly string[]): void {
    if (this.#packed === undefined) {
      for (const n of names) {
        const first = this.idOf(n, false);
        if (first >= 0) {
          throw new VocabularyError(`${this.#dup()} ${shown(n)} (name ${first + 1} already)`, {
            reason: "duplicate",
            entry: n,
            position: -1,
            firstPosition: first,
            maxSize: this.maxSize,
          });
        }
        this.idOf(n, true);
      }
      return;
    }
    if (this.size + names.length > this.maxSize) {
      const n = names[this.maxSize - this.size];
      const why = `cannot add ${shown(n)} beyond ${this.maxSize} names${this.#limit()}`;
      throw new VocabularyError(`${this.#full()}: ${why}`, {
        reason: "full",
        entry: n,
        position: -1,
        maxSize: this.maxSize,
      });
    }
    for (const n of names) this.#names.push(n);
  }

  /**
   * The index of `name`; when it is new, adds it if `add` is true (else returns -1).
   *
   * @throws {VocabularyError} when adding would exceed `maxSize`
   */
  idOf(name: string, add: boolean): number {
    this.#unpack();
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
    this.#unpack();
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
    const p = this.#packed;
    if (p === undefined) return this.#names[id];
    const n = p.ends.length;
    if (!(id >= 0 && id < n)) return this.#names[id - n];
    return p.text.slice(id === 0 ? 0 : p.ends[id - 1], p.ends[id]);
  }

  /** The JSON form (a copy of the names). */
  toJSON(): VocabularyJSON {
    this.#unpack();
    return { names: this.#names.slice() };
  }

  /** Unpacks the names adopted packed (once), mapping each to its index. */
  #unpack(): void {
    const p = this.#packed;
    if (p === undefined) return;
    const after = this.#names;
    this.#packed = undefined;
    this.#names = [];
    let start = 0;
    for (let i = 0; i < p.ends.length; i++) {
      const n = p.text.slice(start, p.ends[i]);
      start = p.ends[i];
      const first = this.#ids.get(n);
      if (first !== undefined) {
        throw new VocabularyError(`${this.#dup()} ${shown(n)} (names ${first + 1} and ${i + 1})`, {
          reason: "duplicate",
          entry: n,
          position: i,
          firstPosition: first,
          maxSize: this.maxSize,
        });
      }
      this.#add(n);
    }
    for (const n of after) this.#add(n);
  }

  /** `Vocabulary: duplicate name`, or `duplicate label name` when it says what it holds. */
  #dup(): string {
    return this.#what === undefined ? "Vocabulary: duplicate name" : `duplicate ${this.#what} name`;
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
