/**
 * The long scenarios, run only when named (`npm run bench -- soak`, `npm run bench -- history`,
 * `npm run bench -- transfer`, or several): the default run leaves them out. Each prints its report (markdown, for
 * docs/benchmarks.md's hand-written part) and the process exits non-zero when one fails.
 */
import { historyFailures, renderHistory } from "./report-history.ts";
import { renderSoak } from "./report-soak.ts";
import { historySettings, runHistoryScenario } from "./scenario-history.ts";
import { runSoakScenario, soakSettings } from "./scenario-soak.ts";
import { renderTransfer, transferFailures } from "./report-transfer.ts";
import { runTransferScenario, transferSettings } from "./scenario-transfer.ts";

/** The scenarios only run when named. */
export const LONG_SCENARIOS = ["soak", "history", "transfer"] as const;

/** The long scenarios named among the command's arguments. */
export function namedLongScenarios(argv: readonly string[]): string[] {
  return argv.filter((a) => (LONG_SCENARIOS as readonly string[]).includes(a));
}

/** Runs the named long scenarios in turn; resolves to the exit code (1 when one failed). */
export async function runLongScenarios(names: readonly string[]): Promise<number> {
  let failed = false;
  const log = (line: string) => console.log(line);
  for (const name of names) {
    const started = performance.now();
    console.log(`- ${name}...`);
    if (name === "soak") {
      const result = await runSoakScenario(soakSettings(), log);
      console.log(`\n${renderSoak(result)}\n`);
      if (result.failures.length > 0) {
        failed = true;
        console.error(`soak FAILED:\n${result.failures.map((f) => `- ${f}`).join("\n")}`);
      }
    }
    if (name === "history") {
      const result = await runHistoryScenario(historySettings(), log);
      console.log(`\n${renderHistory(result)}\n`);
      const failures = historyFailures(result);
      if (failures.length > 0) {
        failed = true;
        console.error(`history FAILED:\n${failures.map((f) => `- ${f}`).join("\n")}`);
      }
    }
    if (name === "transfer") {
      const result = await runTransferScenario(transferSettings(), log);
      console.log(`\n${renderTransfer(result)}\n`);
      const failures = transferFailures(result);
      if (failures.length > 0) {
        failed = true;
        console.error(`transfer FAILED:\n${failures.map((f) => `- ${f}`).join("\n")}`);
      }
    }
    console.log(`  ${name}: ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
  return failed ? 1 : 0;
}
