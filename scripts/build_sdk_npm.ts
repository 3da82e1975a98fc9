/**
 * Builds the npm package of the SDK (`deno task sdk:npm`): the SDK's entry points named in
 * `sdk/deno.json` (the JSR package: `.`, `./http`, `./serving`, `./deno-deploy`, `./cloudflare`)
 * and the files they import, compiled by TypeScript (node_modules/typescript) to ES modules with
 * `.d.ts` declarations under `OUT/esm/`, plus a `package.json` whose `exports` mirror the JSR ones
 * and whose only dependency is `msgpackr` (the version of the root package.json), and a README.
 * Nothing outside `sdk/` is compiled (the SDK imports no trainer code; tests/sdk/imports_test.ts).
 * Type errors are left to `deno check`: the build only transforms (`--noCheck`).
 *
 *   deno task sdk:npm                      # into out/sdk-npm/
 *   deno task sdk:npm --out DIR [--pack]   # --pack also runs `npm pack` there (prints the tarball)
 *
 * `DIR` is emptied first, so it must be new, empty or a previous build (its package.json names the
 * package): `--out .` or `--out sdk` is refused, naming it, and nothing is removed.
 *
 * Prints one JSON line: the output directory, the package name and version, the files, and the
 * tarball when packed.
 *
 * @module
 */
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseFlags, stringFlag } from "../src/cli/commands/args.ts";
import { statOrUndefined } from "../src/cli/commands/path_checks.ts";
import { runScript } from "../src/cli/run_script.ts";

// a path, not a URL's pathname: a checkout under "my projects/" is not under "my%20projects/"
const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** The JSR config of the SDK: name, version, exports (entry name → `./file.ts`). */
export interface SdkConfig {
  name: string;
  version: string;
  license?: string;
  exports: Record<string, string>;
}

/** Reads and checks `sdk/deno.json`. */
export async function readSdkConfig(root = ROOT): Promise<SdkConfig> {
  const path = `${root}sdk/deno.json`;
  const c = JSON.parse(await Deno.readTextFile(path));
  for (const field of ["name", "version"] as const) {
    if (typeof c[field] !== "string" || !c[field]) {
      throw new TypeError(`${path}: field "${field}" must be a non-empty string`);
    }
  }
  if (!c.exports || typeof c.exports !== "object" || typeof c.exports["."] !== "string") {
    throw new TypeError(`${path}: field "exports" must map "." (and subpaths) to ./FILE.ts`);
  }
  return c as SdkConfig;
}

/** The npm `package.json` of the SDK: `exports` point at the compiled `.js` and `.d.ts` files. */
export function npmManifest(
  c: SdkConfig,
  msgpackrVersion: string,
): Record<string, unknown> {
  const exports: Record<string, unknown> = {};
  for (const [key, file] of Object.entries(c.exports)) {
    const base = `./esm/${file.replace(/^\.\//, "").replace(/\.ts$/, "")}`;
    exports[key] = { types: `${base}.d.ts`, default: `${base}.js` };
  }
  exports["./package.json"] = "./package.json";
  const main = exports["."] as { types: string; default: string };
  return {
    name: c.name,
    version: c.version,
    description: "Tagstream edge SDK: load a Tagstream model file and answer top-k tag queries " +
      "(Web APIs only; Deno, Node, Cloudflare Workers, browsers)",
    license: c.license ?? "MIT",
    type: "module",
    sideEffects: false,
    main: main.default,
    types: main.types,
    exports,
    files: ["esm/", "README.md"],
    engines: { node: ">=20" },
    dependencies: { msgpackr: msgpackrVersion },
  };
}

/** Rewrites relative `"./x.ts"` / `"../x.ts"` module specifiers to `.js`. */
export function rewriteTsSpecifiers(src: string): string {
  return src.replace(/(["'])(\.{1,2}\/[^"'\n]*?)\.ts\1/g, "$1$2.js$1");
}

async function run(cmd: string, args: string[], cwd = ROOT): Promise<string> {
  const r = await new Deno.Command(cmd, { args, cwd, stdout: "piped", stderr: "piped" }).output();
  const out = new TextDecoder().decode(r.stdout), err = new TextDecoder().decode(r.stderr);
  if (!r.success) {
    throw new Error(`${cmd} ${args.join(" ")} failed (exit ${r.code}):\n${out}${err}`);
  }
  return out;
}

async function listFiles(dir: string, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    if (e.isDirectory) out.push(...await listFiles(`${dir}/${e.name}`, `${prefix}${e.name}/`));
    else out.push(`${prefix}${e.name}`);
  }
  return out.sort();
}

/**
 * Checks that `out` may be emptied for a build of the package `name`: it does not exist, or is an
 * empty directory or a previous build (its package.json names the package). Anything else (a
 * file, the project, a directory of other files, an empty path) is a TypeError naming it.
 */
async function checkOutDir(out: string, name: string): Promise<void> {
  if (out === "") throw new TypeError("--out is empty: give the directory to build the package in");
  const info = await statOrUndefined(out);
  if (info === undefined) return;
  const refuse = (what: string) =>
    new TypeError(
      `--out ${out} ${what}, which the build would remove: give a new or empty directory, or ` +
        `a previous build of ${name}`,
    );
  if (!info.isDirectory) throw refuse("is a file");
  if ((await Array.fromAsync(Deno.readDir(out))).length === 0) return;
  const pkg = await Deno.readTextFile(`${out}/package.json`).then(JSON.parse).catch(() =>
    undefined
  );
  if (pkg?.name !== name) throw refuse(`holds files that are not a build of ${name}`);
}

/**
 * Builds the package into `out` (emptied first: it must be new, empty or a previous build; a
 * relative path is under the working directory); returns its files, relative to `out`.
 */
export async function buildSdkNpm(out: string, root = ROOT): Promise<{
  name: string;
  version: string;
  files: string[];
}> {
  // absolute: tsc runs in the project, not in the caller's working directory
  out = out && resolve(out);
  const c = await readSdkConfig(root);
  const rootPkg = JSON.parse(await Deno.readTextFile(`${root}package.json`));
  const msgpackr = rootPkg.dependencies?.msgpackr;
  if (typeof msgpackr !== "string") throw new TypeError(`${root}package.json: no msgpackr`);
  await checkOutDir(out, c.name);
  await Deno.remove(out, { recursive: true }).catch((e) => {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  });
  await Deno.mkdir(out, { recursive: true });
  const entries = Object.values(c.exports).map((f) => `${root}sdk/${f.replace(/^\.\//, "")}`);
  await run("node", [
    `${root}node_modules/typescript/bin/tsc`,
    "--noCheck",
    "--target",
    "es2024",
    "--lib",
    "es2024,dom,dom.iterable",
    "--module",
    "esnext",
    "--moduleResolution",
    "bundler",
    "--allowImportingTsExtensions",
    "--rewriteRelativeImportExtensions",
    "--declaration",
    "--skipLibCheck",
    "--rootDir",
    `${root}sdk`,
    "--outDir",
    `${out}/esm`,
    ...entries,
  ]);
  // declarations keep the sources' `./x.ts` specifiers: point them at the emitted `./x.js`
  for (const f of await listFiles(`${out}/esm`)) {
    if (!f.endsWith(".d.ts")) continue;
    const path = `${out}/esm/${f}`;
    await Deno.writeTextFile(path, rewriteTsSpecifiers(await Deno.readTextFile(path)));
  }
  const manifest = npmManifest(c, msgpackr);
  await Deno.writeTextFile(`${out}/package.json`, JSON.stringify(manifest, null, 2) + "\n");
  await Deno.writeTextFile(
    `${out}/README.md`,
    `# ${c.name}\n\n${manifest.description}.\n\n` +
      '```js\nimport { loadModel } from "' + c.name + '";\n' +
      "const model = loadModel(new Uint8Array(await (await fetch(MODEL_URL)).arrayBuffer()));\n" +
      'console.log(model.predictTopK({ text: "a wireless mouse" }, 5));\n```\n\n' +
      "Entry points: " + Object.keys(c.exports).map((k) => `\`${k}\``).join(", ") +
      ". Built from the Tagstream repository's `sdk/` by `deno task sdk:npm`.\n",
  );
  return { name: c.name, version: c.version, files: await listFiles(out) };
}

/** `deno task sdk:npm --help`. */
const USAGE = `deno task sdk:npm [--out DIR (default out/sdk-npm)] [--pack]
Builds the npm package of the SDK into DIR (emptied first: it must be new, empty or a previous
build): ES modules and .d.ts of sdk/ only, package.json, README; --pack also runs npm pack there.
One JSON line on stdout: out, name, version, files (and tarball).`;

if (import.meta.main) {
  await runScript("sdk:npm", async () => {
    const f = parseFlags("sdk:npm", Deno.args, { out: "string", pack: "boolean" }, {
      maxPositionals: 0,
      program: "deno task sdk:npm",
    });
    if (f.values.help) {
      console.log(USAGE);
      return;
    }
    const given = stringFlag(f, "out");
    if (given === "") throw new TypeError("--out is empty: give a directory");
    const out = resolve(given ?? `${ROOT}out/sdk-npm`);
    const built = await buildSdkNpm(out);
    let tarball: string | undefined;
    if (f.values.pack) {
      const packed = JSON.parse(
        await run("npm", ["pack", "--json", "--pack-destination", out], out),
      );
      tarball = `${out}/${packed[0].filename}`;
    }
    console.log(JSON.stringify({ out, ...built, ...(tarball ? { tarball } : {}) }));
  });
}
