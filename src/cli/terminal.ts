/** The admin commands' terminal: JSON on stdout, notes on stderr, one line from stdin. */
import type { AdminEnv } from "./commands.ts";

/** Prints strings as they are and anything else as one line of JSON. */
export function print(value: unknown): void {
  process.stdout.write((typeof value === "string" ? value : JSON.stringify(value)) + "\n");
}

/** Writes a note for the operator to stderr. */
export function warn(message: string): void {
  process.stderr.write(message + "\n");
}

/** Reads stdin up to the first newline (or its end), without the line ending. */
export const readLine: AdminEnv["readLine"] = async (prompt) => {
  if (process.stdin.isTTY) process.stderr.write(prompt);
  let text = "";
  for await (const chunk of process.stdin) {
    text += String(chunk);
    if (text.includes("\n")) break;
  }
  return text.split("\n")[0].replace(/\r$/, "");
};
