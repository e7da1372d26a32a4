// Runs every test file with node's test runner (through tsx), then prints one summary line.
// Usage: npm test [-- file-or-dir ...]; STORES=sqlite,postgres picks the stores for API suites.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const args = process.argv.slice(2);

function collect(target) {
  const full = path.resolve(root, target);
  if (fs.statSync(full).isFile()) return [full];
  return fs
    .readdirSync(full, { withFileTypes: true })
    .flatMap((d) => (d.isDirectory() ? collect(path.join(full, d.name)) : d.name.endsWith(".test.ts") ? [path.join(full, d.name)] : []));
}

const files = (args.length > 0 ? args : ["test"]).flatMap(collect).sort();
if (files.length === 0) {
  console.error("no test files found");
  process.exit(1);
}
const concurrency = process.env.TEST_CONCURRENCY ?? "2";
const tapFile = path.join(fs.mkdtempSync(path.join(process.env.TMPDIR ?? "/tmp", "parley-tap-")), "results.tap");
const started = Date.now();
const child = spawn(
  process.execPath,
  ["--import", "tsx", "--test", `--test-concurrency=${concurrency}`, "--test-reporter=spec", "--test-reporter-destination=stdout",
    "--test-reporter=tap", `--test-reporter-destination=${tapFile}`, ...files],
  { cwd: root, stdio: "inherit", env: process.env },
);
child.on("exit", (code, signal) => {
  const tap = fs.existsSync(tapFile) ? fs.readFileSync(tapFile, "utf8") : "";
  const count = (name) => Number(new RegExp(`^# ${name} (\\d+)$`, "m").exec(tap)?.[1] ?? 0);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`\ntests: ${count("pass")} passed, ${count("fail")} failed, ${count("skipped")} skipped (${files.length} files, ${seconds}s)`);
  process.exit(code ?? (signal ? 1 : 0));
});
