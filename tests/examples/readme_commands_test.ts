// The READMEs' commands run as written from the project directory (issue 17, part 4): every
// command of a fenced `sh` block goes through `npx` (Deno and wrangler come from npm) or a tool
// that is installed, never a bare `deno`/`tagstream`; the `deno task` names exist in deno.json and
// the project files the commands name exist. And the Deno Deploy example, started as its README
// starts it but without its environment, prints one line and exits non-zero.
import { assert } from "../helpers.ts";

const ROOT = new URL("../../", import.meta.url);
const READMES = [
  "README.md",
  "examples/deno-deploy/README.md",
  "examples/cloudflare-worker/README.md",
];

/** One command of a README: continuation lines joined, the file and line it starts on. */
interface Command {
  where: string;
  text: string;
}

/** The commands of the fenced `sh` (or `bash`/`shell`) blocks of `markdown`. */
function shCommands(file: string, markdown: string): Command[] {
  const out: Command[] = [];
  const lines = markdown.split("\n");
  let inSh = false, fence = false;
  let pending: Command | undefined;
  lines.forEach((line, i) => {
    const f = line.match(/^\s*```\s*(\w*)/);
    if (f) {
      if (!fence) inSh = ["sh", "bash", "shell"].includes(f[1]);
      fence = !fence;
      if (!fence) inSh = false;
      return;
    }
    if (!inSh) return;
    const t = line.trim();
    if (pending) {
      pending.text += " " + t.replace(/\\$/, "").trim();
      if (!t.endsWith("\\")) pending = undefined;
      return;
    }
    if (t === "" || t.startsWith("#")) return;
    const c = { where: `${file}:${i + 1}`, text: t.replace(/\\$/, "").trim() };
    out.push(c);
    if (t.endsWith("\\")) pending = c;
  });
  return out;
}

/** The first word of each pipeline/list segment of `cmd`, after `VAR=value` assignments. */
function programs(cmd: string): string[] {
  return cmd.split(/&&|\|\||\||;/).map((seg) =>
    seg.trim().replace(/&$/, "").trim().replace(/^(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*/, "")
      .split(/\s+/)[0]
  ).filter((w) => w !== "");
}

Deno.test("shCommands joins continuation lines and programs() finds each segment's program", () => {
  const md =
    "text\n```sh\n# note\nA=1 B=2 \\\n  npx deno serve x.ts\ncat f | deno run y.ts\n```\n" +
    "```ts\ndeno run z.ts\n```\n";
  const cmds = shCommands("t.md", md);
  assert(cmds.length === 2, `commands: ${JSON.stringify(cmds)}`);
  assert(cmds[0].text === "A=1 B=2 npx deno serve x.ts" && cmds[0].where === "t.md:4", "joined");
  assert(programs(cmds[0].text).join() === "npx", `programs ${programs(cmds[0].text)}`);
  assert(programs(cmds[1].text).join() === "cat,deno", `programs ${programs(cmds[1].text)}`);
});

Deno.test("README commands use npx deno / npx deno task tagstream, name real tasks and files", async () => {
  const tasks = Object.keys(
    (JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT))) as { tasks: object }).tasks,
  );
  const problems: string[] = [];
  let count = 0;
  for (const file of READMES) {
    const md = await Deno.readTextFile(new URL(file, ROOT));
    const cmds = shCommands(file, md);
    if (file.startsWith("examples/")) {
      assert(
        cmds.length > 0,
        `${file} has no fenced sh block (commands must be fenced to be checked)`,
      );
    }
    for (const c of cmds) {
      count++;
      for (const p of programs(c.text)) {
        if (p === "deno" || p === "tagstream" || p === "wrangler") {
          problems.push(`${c.where}: bare '${p}' is not installed, use 'npx ${p}': ${c.text}`);
        }
      }
      for (const m of c.text.matchAll(/\bdeno task ([\w:-]+)/g)) {
        if (!tasks.includes(m[1])) problems.push(`${c.where}: no deno task '${m[1]}': ${c.text}`);
      }
      for (const m of c.text.matchAll(/(?:^|\s)((?:examples|src|bench|scripts|sdk)\/[\w./-]+)/g)) {
        const path = m[1].replace(/[.,;:]$/, "");
        if (path.endsWith("/")) continue;
        // a destination of cp/redirection need not exist yet
        if (/\bcp\s/.test(c.text) && c.text.trim().endsWith(path)) continue;
        try {
          await Deno.stat(new URL(path, ROOT));
        } catch {
          problems.push(`${c.where}: ${path} does not exist: ${c.text}`);
        }
      }
    }
  }
  assert(count >= 10, `only ${count} commands found`);
  assert(problems.length === 0, problems.join("\n"));
});

Deno.test("the Deno Deploy README's MODEL_URL is the service's GET /model and names --public-read", async () => {
  const md = await Deno.readTextFile(new URL("examples/deno-deploy/README.md", ROOT));
  const urls = [...md.matchAll(/MODEL_URL=(\S+)/g)].map((m) => m[1]);
  assert(urls.length > 0, "no MODEL_URL=... in the README");
  for (const u of urls) {
    assert(/^https?:\/\/[^/]+\/model$/.test(u), `MODEL_URL=${u}: not GET /model`);
  }
  const serve = shCommands("deno-deploy", md).find((c) => / tagstream serve /.test(c.text));
  assert(
    serve?.text.includes("--public-read"),
    "the service it polls is not started --public-read",
  );
  assert(/--public-read/.test(md.replace(serve!.text, "")), "the text does not say why");
});

Deno.test("the Deno Deploy example without MODEL_URL / MODEL_KV_KEY prints one line, exits 2", async () => {
  const main = new URL("examples/deno-deploy/main.ts", ROOT).pathname;
  const env: Record<string, string> = { NO_COLOR: "1" };
  for (const k of ["PATH", "HOME", "DENO_DIR", "TMPDIR"]) {
    const v = Deno.env.get(k);
    if (v !== undefined) env[k] = v;
  }
  const cases: [string[], Record<string, string>, RegExp][] = [
    [[], {}, /set MODEL_URL or MODEL_KV_KEY/],
    [[], { MODEL_KV_KEY: "models,bibtex" }, /MODEL_KV_KEY needs Deno KV: run with --unstable-kv/],
  ];
  for (const [flags, extra, re] of cases) {
    const cmd = new Deno.Command(Deno.execPath(), {
      args: ["serve", "--port", "0", "--allow-net", "--allow-env", ...flags, main],
      cwd: new URL(".", ROOT).pathname,
      clearEnv: true,
      env: { ...env, ...extra },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    });
    const child = cmd.spawn();
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    const r = await child.output();
    clearTimeout(timer);
    const stderr = new TextDecoder().decode(r.stderr);
    const lines = stderr.split("\n").filter((l) => l.trim() !== "");
    const what = `${JSON.stringify(extra)}: exit ${r.code}, stderr:\n${stderr}`;
    assert(r.code === 2, what);
    assert(lines.length === 1 && re.test(lines[0]), what);
    assert(!/\bat .*main\.ts|Uncaught|^error:/m.test(stderr), `stack trace: ${what}`);
    assert(!/Listening on/.test(new TextDecoder().decode(r.stdout)), `it served: ${what}`);
  }
});
