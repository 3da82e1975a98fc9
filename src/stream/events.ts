/**
 * Per-line validation of NDJSON events for the learning service:
 * `{"id": "...", "features": {"<index or name>": value, ...}, "labels": ["<name>", ...],
 * "negatives": ["<name>", ...]}`. A bad line gets a reason; good lines map feature and label
 * names through growing vocabularies only once the whole line is known to be valid.
 *
 * @module
 */
import type { SparseVector } from "../data/types.ts";
import type { Vocabulary } from "../data/vocabulary.ts";

/** How event feature keys are read. */
export type FeatureKeys = "index" | "name";

/** Limits and key mode of {@linkcode EventParser}. */
export interface EventLimits {
  /** `"index"` (default): keys are non-negative integer column indices; `"name"`: names. */
  featureKeys?: FeatureKeys;
  /** Largest feature-space size accepted (index bound, or vocabulary size). Default 2^20. */
  maxFeatures?: number;
  /** Largest label-space size accepted. Default 2^16. */
  maxLabels?: number;
  /** Longest accepted line in bytes (UTF-16 length bound). Default 65536. */
  maxLineBytes?: number;
  /** Most features in one event. Default 10000. */
  maxFeaturesPerEvent?: number;
  /** Longest feature or label name. Default 256. */
  maxNameLength?: number;
}

/** A validated event, mapped to model columns and label indices. */
export interface ParsedEvent {
  /** Event id when given. */
  readonly id?: string;
  /** Features, indices strictly increasing. */
  readonly x: SparseVector;
  /** Positive labels, strictly increasing. */
  readonly labels: Int32Array;
  /** Explicit negative labels, strictly increasing, when given. */
  readonly negatives?: Int32Array;
}

/** The result of parsing one line. */
export type LineResult =
  | { readonly ok: true; readonly event: ParsedEvent }
  | { readonly ok: false; readonly reason: string };

const ALLOWED = new Set(["id", "features", "labels", "negatives"]);
const INDEX_RE = /^(0|[1-9][0-9]*)$/;

/**
 * Validates event lines and maps them through feature and label vocabularies.
 *
 * @example
 * ```ts
 * import { Vocabulary } from "../data/vocabulary.ts";
 * import { EventParser } from "./events.ts";
 * const p = new EventParser(new Vocabulary(), new Vocabulary(), { featureKeys: "index" });
 * const r = p.parseLine('{"features": {"3": 1, "0": 0.5}, "labels": ["cat"]}');
 * console.log(r.ok && Array.from(r.event.x.indices)); // [0, 3]
 * console.log(p.parseLine('{"features": {"-1": 1}, "labels": []}').ok); // false
 * ```
 */
export class EventParser {
  /** Feature-name vocabulary (used in `"name"` mode). */
  readonly features: Vocabulary;
  /** Label-name vocabulary. */
  readonly labels: Vocabulary;
  /** Key mode. */
  readonly featureKeys: FeatureKeys;
  readonly #maxFeatures: number;
  readonly #maxLabels: number;
  readonly #maxLineBytes: number;
  readonly #maxPerEvent: number;
  readonly #maxName: number;

  constructor(features: Vocabulary, labels: Vocabulary, limits: EventLimits = {}) {
    this.features = features;
    this.labels = labels;
    this.featureKeys = limits.featureKeys ?? "index";
    if (this.featureKeys !== "index" && this.featureKeys !== "name") {
      throw new TypeError(
        `EventParser: featureKeys must be "index" or "name", got '${this.featureKeys}'`,
      );
    }
    this.#maxFeatures = limits.maxFeatures ?? 1 << 20;
    this.#maxLabels = limits.maxLabels ?? 1 << 16;
    this.#maxLineBytes = limits.maxLineBytes ?? 65536;
    this.#maxPerEvent = limits.maxFeaturesPerEvent ?? 10000;
    this.#maxName = limits.maxNameLength ?? 256;
  }

  /** Largest line length accepted. */
  get maxLineBytes(): number {
    return this.#maxLineBytes;
  }

  /**
   * Parses one line: a reason when it is invalid (the vocabularies are then unchanged), else the
   * event with new names added to the vocabularies.
   */
  parseLine(line: string): LineResult {
    if (line.length > this.#maxLineBytes) {
      return { ok: false, reason: `line is longer than ${this.#maxLineBytes} bytes` };
    }
    let obj: unknown;
    try {
      obj = JSON.parse(line);
    } catch (e) {
      return { ok: false, reason: `malformed JSON: ${(e as Error).message}` };
    }
    if (obj === null || typeof obj !== "object" || Array.isArray(obj)) {
      return { ok: false, reason: "an event must be a JSON object" };
    }
    const rec = obj as Record<string, unknown>;
    for (const key of Object.keys(rec)) {
      if (!ALLOWED.has(key)) {
        return {
          ok: false,
          reason: `unknown field '${key.slice(0, 40)}' (allowed: id, features, labels, negatives)`,
        };
      }
    }
    let id: string | undefined;
    if (rec.id !== undefined) {
      if (typeof rec.id === "string") id = rec.id;
      else if (typeof rec.id === "number" && Number.isFinite(rec.id)) id = String(rec.id);
      else return { ok: false, reason: "field 'id' must be a string or a finite number" };
      if (id.length > this.#maxName) {
        return { ok: false, reason: `field 'id' is longer than ${this.#maxName} characters` };
      }
    }
    const f = rec.features;
    if (f === null || typeof f !== "object" || Array.isArray(f)) {
      return { ok: false, reason: "field 'features' must be an object {key: number}" };
    }
    const keys = Object.keys(f as Record<string, unknown>);
    if (keys.length > this.#maxPerEvent) {
      return { ok: false, reason: `more than ${this.#maxPerEvent} features` };
    }
    const fv = f as Record<string, unknown>;
    for (const key of keys) {
      const v = fv[key];
      if (typeof v !== "number" || !Number.isFinite(v)) {
        return {
          ok: false,
          reason: `features['${key.slice(0, 40)}']: value must be a finite number, got ${
            typeof v === "number" ? String(v) : JSON.stringify(v)?.slice(0, 20)
          }`,
        };
      }
      if (this.featureKeys === "index") {
        if (!INDEX_RE.test(key)) {
          return {
            ok: false,
            reason: key.startsWith("-") && INDEX_RE.test(key.slice(1))
              ? `features: negative index ${key.slice(0, 20)}`
              : `features: key '${key.slice(0, 40)}' is not a non-negative integer index`,
          };
        }
        if (Number(key) >= this.#maxFeatures) {
          return {
            ok: false,
            reason: `features: index ${key.slice(0, 20)} is out of range [0, ${this.#maxFeatures})`,
          };
        }
      } else if (key.length === 0 || key.length > this.#maxName) {
        return { ok: false, reason: `features: name length must be 1..${this.#maxName}` };
      }
    }
    const lab = this.#checkNames(rec.labels, "labels", true);
    if (typeof lab !== "object") {
      return { ok: false, reason: lab ?? "field 'labels' is required (an array of names)" };
    }
    const neg = this.#checkNames(rec.negatives, "negatives", false);
    if (typeof neg === "string") return { ok: false, reason: neg };
    // Growth limits (checked before anything is added).
    if (this.featureKeys === "name") {
      let fresh = 0;
      for (const key of keys) if (this.features.idOf(key, false) < 0) fresh++;
      if (this.features.size + fresh > this.#maxFeatures) {
        return { ok: false, reason: `feature vocabulary would exceed ${this.#maxFeatures} names` };
      }
    }
    let freshLabels = 0;
    const seen = new Set<string>();
    for (const n of [...lab, ...(neg ?? [])]) {
      if (!seen.has(n) && this.labels.idOf(n, false) < 0) freshLabels++;
      seen.add(n);
    }
    if (this.labels.size + freshLabels > this.#maxLabels) {
      return { ok: false, reason: `label vocabulary would exceed ${this.#maxLabels} names` };
    }
    // Valid: map.
    const pairs: number[] = [];
    for (const key of keys) {
      const v = fv[key] as number;
      if (v === 0) continue;
      const j = this.featureKeys === "index" ? Number(key) : this.features.idOf(key, true);
      pairs.push(j, v);
    }
    const n = pairs.length / 2;
    const order = new Int32Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    order.sort((a, b) => pairs[2 * a] - pairs[2 * b]);
    const indices = new Int32Array(n), values = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      indices[i] = pairs[2 * order[i]];
      values[i] = pairs[2 * order[i] + 1];
    }
    const labels = this.#mapLabels(lab);
    const negatives = neg === undefined ? undefined : this.#mapLabels(neg);
    const event: ParsedEvent = { x: { indices, values }, labels };
    if (id !== undefined) (event as { id?: string }).id = id;
    if (negatives !== undefined) (event as { negatives?: Int32Array }).negatives = negatives;
    return { ok: true, event };
  }

  /**
   * Maps a feature record for prediction, without growing anything: unknown names and indices
   * beyond `numFeatures` are dropped. Throws a TypeError naming the bad key.
   */
  featuresForPredict(f: unknown, numFeatures: number): SparseVector {
    if (f === null || typeof f !== "object" || Array.isArray(f)) {
      throw new TypeError("field 'features' must be an object {key: number}");
    }
    const pairs: number[] = [];
    for (const [key, v] of Object.entries(f as Record<string, unknown>)) {
      if (typeof v !== "number" || !Number.isFinite(v)) {
        throw new TypeError(`features['${key.slice(0, 40)}']: value must be a finite number`);
      }
      let j: number;
      if (this.featureKeys === "index") {
        if (!INDEX_RE.test(key)) {
          throw new TypeError(`features: key '${key.slice(0, 40)}' is not a non-negative integer`);
        }
        j = Number(key);
      } else {
        j = this.features.idOf(key, false);
      }
      if (j >= 0 && j < numFeatures && v !== 0) pairs.push(j, v);
    }
    const n = pairs.length / 2;
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) =>
      pairs[2 * a] - pairs[2 * b]
    );
    const indices = new Int32Array(n), values = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      indices[i] = pairs[2 * order[i]];
      values[i] = pairs[2 * order[i] + 1];
    }
    return { indices, values };
  }

  #checkNames(v: unknown, field: string, required: boolean): string[] | string | undefined {
    if (v === undefined) {
      return required ? `field '${field}' is required (an array of names)` : undefined;
    }
    if (!Array.isArray(v)) return `field '${field}' must be an array of names`;
    const out: string[] = [];
    for (let i = 0; i < v.length; i++) {
      const n = v[i];
      if (typeof n === "string") {
        if (n.length === 0 || n.length > this.#maxName) {
          return `${field}[${i}]: name length must be 1..${this.#maxName}`;
        }
        out.push(n);
      } else if (typeof n === "number" && Number.isInteger(n) && n >= 0) {
        out.push(String(n));
      } else if (typeof n === "number" && Number.isInteger(n)) {
        return `${field}[${i}]: negative label index ${n}`;
      } else {
        return `${field}[${i}]: a label must be a name (string) or a non-negative integer`;
      }
    }
    return out;
  }

  #mapLabels(names: readonly string[]): Int32Array {
    const ids = new Set<number>();
    for (const n of names) ids.add(this.labels.idOf(n, true));
    return Int32Array.from([...ids].sort((a, b) => a - b));
  }
}
