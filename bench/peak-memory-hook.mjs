// Loaded with `--import` into a command the transfer scenario times (bench/scenario-transfer.ts):
// as the process exits it prints its peak resident memory (kilobytes) on stderr.
process.on("exit", () => process.stderr.write(`\nPARLEY_BENCH_PEAK_RSS_KB=${process.resourceUsage().maxRSS}\n`));
