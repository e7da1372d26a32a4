/** The program's logger: pino at the configured level, never printing credentials. */
import pino, { type Logger } from "pino";
import type { Config } from "./config.ts";

/** A logger that never prints credentials, even if a header or body field slips into a log call. */
export function makeLogger(config: Pick<Config, "logLevel">): Logger {
  return pino({
    level: config.logLevel,
    redact: { paths: ["req.headers.authorization", "*.api_key", "*.password", "*.key", "api_key", "password"], censor: "[redacted]" },
  });
}
