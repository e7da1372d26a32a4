/** The words a view shows for a failed call: the server's message, or the caller's fallback. */
import { ApiError } from "../api/client.ts";

/** The server's message for a failed call (its error envelope's `msg`), or `fallback`. */
export function errorText(err: unknown, fallback = "Something went wrong. Try again."): string {
  return err instanceof ApiError ? err.message : fallback;
}

/** A refusal of the app's own, worded for the user as the server's are (before any call). */
export function refusal(message: string): ApiError {
  return new ApiError("BAD_REQUEST", message, 0);
}
