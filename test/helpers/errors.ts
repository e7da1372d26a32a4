/** Error messages many suites expect, worded as the server (and upstream Zulip) words them. */

/** A request without credentials to an endpoint that needs them. */
export const NO_AUTH = "Not logged in: API authentication or user session required";

/** An administrators-only endpoint called by someone else. */
export const NOT_ADMIN = "Must be an organization administrator";

/** An owners-only endpoint called by someone else. */
export const NOT_OWNER = "Must be an organization owner";

/** A login with a wrong email or password. */
export const WRONG_LOGIN = "Your username or password is incorrect";
