/**
 * The labels of an NDJSON event (`labels` and `negatives`): checking them (names or indices,
 * lengths, unknown names when the vocabulary does not grow), checking that a line's new names
 * fit the label vocabulary and that no label is both positive and negative, and mapping them
 * to sorted, distinct label indices once the line is accepted.
 *
 * @module
 */
import type { NdjsonSettings } from "./ndjson_options.ts";
import { MAX_INDEX, showName as show } from "./json_text.ts";

/**
 * Checks a `labels` or `negatives` value (`field` names it in errors): an array of names
 * (well-formed Unicode strings, or non-negative safe integers, i.e. up to 2^53 − 1; mapped
 * through the label vocabulary) or, with
 * `labelKeys: "index"`, label indices. Returns it; nothing is added to the vocabulary.
 *
 * @example
 * ```ts
 * import { checkLabels } from "./ndjson_labels.ts";
 * import { resolveNdjsonOptions } from "./ndjson_options.ts";
 * const s = resolveNdjsonOptions({ growLabels: false });
 * try {
 *   checkLabels(s, ["toy"], "labels");
 * } catch (e) {
 *   console.log((e as Error).message); // labels[0]: unknown label "toy"
 * }
 * ```
 */
export function checkLabels(s: NdjsonSettings, v: unknown, field: string): (string | number)[] {
  if (!Array.isArray(v)) throw new TypeError(`field '${field}' must be an array`);
  const maxName = s.maxNameLength;
  for (let i = 0; i < v.length; i++) {
    const n = v[i];
    if (s.labelKeys === "index") {
      if (!(typeof n === "number" && Number.isInteger(n) && n >= 0 && n <= MAX_INDEX)) {
        throw new RangeError(`${field}[${i}]: ${JSON.stringify(n)} is not a label index`);
      }
      if (n >= s.numLabels) {
        throw new RangeError(
          `${field}[${i}]: label index ${n} is out of range [0, ${s.numLabels})`,
        );
      }
    } else if (typeof n === "string") {
      if (n.length === 0 || n.length > maxName) {
        throw new RangeError(`${field}[${i}]: name length must be 1..${maxName}, got ${n.length}`);
      }
      if (!n.isWellFormed()) throw new RangeError(`${field}[${i}]: ${notWellFormed(n)}`);
      if (!s.growLabels && s.labels.idOf(n, false) < 0) {
        throw new RangeError(`${field}[${i}]: unknown label ${show(n)}`);
      }
    } else if (typeof n === "number" && Number.isInteger(n) && n >= 0) {
      if (n > Number.MAX_SAFE_INTEGER) {
        throw new RangeError(
          `${field}[${i}]: integer label ${n} is beyond ${Number.MAX_SAFE_INTEGER} (2^53 - 1, the largest integer a JSON number holds exactly); send it as a string`,
        );
      }
      if (!s.growLabels && s.labels.idOf(String(n), false) < 0) {
        throw new RangeError(`${field}[${i}]: unknown label ${n}`);
      }
    } else {
      throw new TypeError(
        `${field}[${i}]: a label must be a name (string) or a non-negative integer, got ${
          n === null || typeof n !== "object"
            ? String(n)
            : Array.isArray(n)
            ? "an array"
            : "an object"
        }`,
      );
    }
  }
  return v as (string | number)[];
}

/**
 * Why `name` is not well-formed Unicode — where its first lone UTF-16 surrogate is — or
 * `undefined` when it is well-formed. Names are stored as UTF-8 (checkpoints, model files),
 * where a lone surrogate would become U+FFFD and two distinct names one; so names must be
 * well-formed (`String.prototype.isWellFormed`). Call it only for a name that is not (it scans
 * the name).
 *
 * @example
 * ```ts
 * import { notWellFormed } from "./ndjson_labels.ts";
 * console.log(notWellFormed("x\ud800")); // name "x\ud800" is not well-formed Unicode (lone surrogate at code unit 1)
 * console.log(notWellFormed("a\ud83d\ude00")); // undefined
 * ```
 */
export function notWellFormed(name: string): string | undefined {
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    const d = c <= 0xdbff && i + 1 < name.length ? name.charCodeAt(i + 1) : 0;
    if (d >= 0xdc00 && d <= 0xdfff) {
      i++; // a pair
      continue;
    }
    return `name ${show(name)} is not well-formed Unicode (lone surrogate at code unit ${i})`;
  }
  return undefined;
}

/**
 * Throws when a label is both in `lab` (labels) and in `neg` (negatives).
 *
 * @example
 * ```ts
 * import { checkLabelOverlap } from "./ndjson_labels.ts";
 * checkLabelOverlap(["a"], ["b"]);
 * try {
 *   checkLabelOverlap(["a", 2], ["2"]);
 * } catch (e) {
 *   console.log((e as Error).message); // label "2" is both in 'labels' and in 'negatives'
 * }
 * ```
 */
export function checkLabelOverlap(
  lab: readonly (string | number)[],
  neg: readonly (string | number)[] | undefined,
): void {
  if (neg !== undefined && neg.length > 0 && lab.length > 0) {
    const pos = new Set(lab.map(String));
    for (const n of neg) {
      if (pos.has(String(n))) {
        throw new RangeError(`label ${show(String(n))} is both in 'labels' and in 'negatives'`);
      }
    }
  }
}

/**
 * Throws when the new label names of a line would overflow a growing label vocabulary.
 *
 * @example
 * ```ts
 * import { checkLabelRoom } from "./ndjson_labels.ts";
 * import { resolveNdjsonOptions } from "./ndjson_options.ts";
 * import { Vocabulary } from "./vocabulary.ts";
 * const s = resolveNdjsonOptions({ labels: new Vocabulary(["a"], 2) });
 * checkLabelRoom(s, ["a", "b"], undefined);
 * try {
 *   checkLabelRoom(s, ["b"], ["c"]);
 * } catch (e) {
 *   console.log((e as Error).message); // the label vocabulary is full (2 names)
 * }
 * ```
 */
export function checkLabelRoom(
  s: NdjsonSettings,
  lab: readonly (string | number)[],
  neg: readonly (string | number)[] | undefined,
): void {
  if (s.labelKeys === "name" && s.growLabels && Number.isFinite(s.labels.maxSize)) {
    const fresh = new Set<string>();
    for (const n of [...lab, ...(neg ?? [])]) {
      if (s.labels.idOf(String(n), false) < 0) fresh.add(String(n));
    }
    if (s.labels.size + fresh.size > s.labels.maxSize) {
      throw new RangeError(`the label vocabulary is full (${s.labels.maxSize} names)`);
    }
  }
}

/**
 * Maps checked labels to sorted, distinct label indices (growing the vocabulary when the
 * settings say so); with index labels, raises `extent.maxLabelIndex` to the largest + 1.
 *
 * @example
 * ```ts
 * import { mapLabels } from "./ndjson_labels.ts";
 * import { resolveNdjsonOptions } from "./ndjson_options.ts";
 * const s = resolveNdjsonOptions();
 * const extent = { maxLabelIndex: 0 };
 * console.log(mapLabels(s, ["b", "a", "b"], extent), s.labels.names); // Int32Array(2) [ 0, 1 ] [ "b", "a" ]
 * ```
 */
export function mapLabels(
  s: NdjsonSettings,
  names: readonly (string | number)[],
  extent: { maxLabelIndex: number },
): Int32Array {
  const out = new Int32Array(names.length);
  for (let i = 0; i < names.length; i++) {
    const n = names[i];
    if (s.labelKeys === "index") {
      out[i] = n as number;
      if ((n as number) + 1 > extent.maxLabelIndex) extent.maxLabelIndex = (n as number) + 1;
    } else {
      out[i] = s.labels.idOf(String(n), s.growLabels);
    }
  }
  out.sort();
  let m = 0;
  for (let i = 0; i < out.length; i++) if (i === 0 || out[i] !== out[i - 1]) out[m++] = out[i];
  return m === out.length ? out : out.slice(0, m);
}
