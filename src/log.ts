/** The program's logger: pino at the configured level, never printing credentials. */
import pino, { type Logger } from "pino";
import type { Config } from "./config.ts";

/**
 * A logger that never prints credentials, even if a header or body field slips into a log call;
 * on stdout, or (`toStderr`: the admin commands, whose stdout is their answer) on stderr.
 */
export function makeLogger(config: Pick<Config, "logLevel">, toStderr = false): Logger {
  const options = {
    level: config.logLevel,
    redact: { paths: ["req.headers.authorization", "*.api_key", "*.password", "*.key", "api_key", "password"], censor: "[redacted]" },
  };
  return toStderr ? pino(options, pino.destination(2)) : pino(options);
}
