/**
 * The load generator as one long-lived process for a whole benchmark run: it reads one JSON
 * LoadOptions per line on stdin, runs it (bench/load.ts's runLoad, one run at a time) and prints
 * one JSON line per run, `{"result": ...}` or `{"error": "..."}`. Starting a process under tsx
 * costs about 0.7 s of this machine's time, and a default run makes some forty load runs.
 * Exits when its stdin closes.
 */
import readline from "node:readline";
import { runLoad, type LoadOptions } from "./load.ts";

const lines = readline.createInterface({ input: process.stdin });
for await (const line of lines) {
  if (line.trim() === "") continue;
  try {
    const result = await runLoad(JSON.parse(line) as LoadOptions);
    process.stdout.write(`${JSON.stringify({ result })}\n`);
  } catch (err) {
    process.stdout.write(`${JSON.stringify({ error: String(err) })}\n`);
  }
}
