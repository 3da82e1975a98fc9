/**
 * Reading the project's own source for the structure tests (layers, the SDK's imports): the
 * `.ts` files under a folder, and code with its comments removed.
 *
 * @module
 */

/** Every `.ts` file under `dir`, recursively. */
export async function* tsFiles(dir: URL): AsyncGenerator<URL> {
  for await (const e of Deno.readDir(dir)) {
    if (e.isDirectory) yield* tsFiles(new URL(`${e.name}/`, dir));
    else if (e.name.endsWith(".ts")) yield new URL(e.name, dir);
  }
}

/** Code without comments (doc examples may import anything and use any API). */
export function stripComments(src: string): string {
  return src.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
}
