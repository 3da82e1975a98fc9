import { decodeModelFile } from "../../src/format/model_file.ts";
const a = decodeModelFile(Deno.readFileSync(Deno.args[0])) as any, b = decodeModelFile(Deno.readFileSync(Deno.args[1])) as any;
let total = 0;
for (const k of Object.keys(a.tensors)) { const x = a.tensors[k].data, y = b.tensors[k].data; for (let i = 0; i < x.length; i++) if (!Object.is(x[i], y[i])) total++; }
console.log("differing tensor entries:", total);
