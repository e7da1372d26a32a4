/** Errors of narrows and message reads, worded as Zulip's (zerver/lib/narrow.py, lib/exceptions.py). */
import { JsonableError } from "../http/errors.ts";

/** "Invalid narrow operator: {desc}", Zulip's BadNarrowOperatorError. */
export class BadNarrowError extends JsonableError {
  constructor(desc: string) {
    super(`Invalid narrow operator: ${desc}`, { code: "BAD_NARROW", data: { desc } });
  }
}

/** Parameters that cannot be sent together (Zulip's IncompatibleParametersError). */
export class IncompatibleParametersError extends JsonableError {
  constructor(parameters: readonly string[]) {
    const list = parameters.join(", ");
    super(`Unsupported parameter combination: ${list}`, { code: "INCOMPATIBLE_PARAMETERS", data: { parameters: list } });
  }
}
