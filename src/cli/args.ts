/** Argument parsing for the admin commands: node:util parseArgs plus required options and choices. */
import { parseArgs } from "node:util";

/** A failure the CLI reports as one line on stderr with a non-zero exit (2: usage, 1: refused). */
export class CliError extends Error {
  constructor(message: string, readonly exitCode = 1) {
    super(message);
  }
}

/** One `--name value` option of a command, or (`flag`) a `--name` switch, read as "true" when given. */
type OptionSpec = { required?: boolean; choices?: readonly string[]; flag?: true; help: string };

/** A command's options, by name (without the leading `--`). */
export type OptionSpecs = Record<string, OptionSpec>;

/** Parses `argv` strictly against `specs`; unknown, missing or invalid options are usage errors. */
export function parseOptions(argv: string[], specs: OptionSpecs): Record<string, string | undefined> {
  return checkValues(parseStrictly(argv, specs, false).values, specs);
}

/** Parses `argv` as one file argument (`restore FILE`) and options, as strictly as parseOptions. */
export function parseFileArgument(argv: string[], specs: OptionSpecs): { file: string; opts: Record<string, string | undefined> } {
  const { values, positionals } = parseStrictly(argv, specs, true);
  if (positionals.length !== 1) throw new CliError(positionals.length === 0 ? "missing the FILE argument" : `one FILE argument expected, got ${positionals.length}`, 2);
  return { file: positionals[0], opts: checkValues(values, specs) };
}

function parseStrictly(argv: string[], specs: OptionSpecs, allowPositionals: boolean): { values: Record<string, string | boolean | undefined>; positionals: string[] } {
  const options = Object.fromEntries(Object.entries(specs).map(([name, spec]) => [name, { type: spec.flag ? ("boolean" as const) : ("string" as const) }]));
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals });
  } catch (err) {
    throw new CliError(err instanceof Error ? err.message : String(err), 2);
  }
}

function checkValues(values: Record<string, string | boolean | undefined>, specs: OptionSpecs): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, spec] of Object.entries(specs)) {
    const value = values[name] === true ? "true" : values[name];
    if (typeof value !== "string") {
      if (spec.required) throw new CliError(`missing required option --${name}`, 2);
      continue;
    }
    if (spec.choices && !spec.choices.includes(value)) {
      throw new CliError(`--${name} must be one of ${spec.choices.join(", ")} (got '${value}')`, 2);
    }
    out[name] = value;
  }
  return out;
}

/** The usage line of one command, e.g. `create-user --email E --full-name N [--role R]`. */
export function usageLine(command: string, specs: OptionSpecs): string {
  const parts = Object.entries(specs).map(([name, spec]) => {
    if (spec.flag) return `[--${name}]`;
    const arg = spec.choices ? spec.choices.join("|") : name.toUpperCase().replaceAll("-", "_");
    return spec.required ? `--${name} ${arg}` : `[--${name} ${arg}]`;
  });
  return [command, ...parts].join(" ");
}
