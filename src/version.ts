/** What the server advertises about its API level. */

/** SPEC.md's newest feature-level entry; every behaviour tagged up to it is kept. */
export const FEATURE_LEVEL = 420;

/** The version string shown as zulip_version / service_version. */
export const ZULIP_VERSION = "12.0-parley-0.1.0";

/** The merge base reported alongside the version (no upstream tree: same as the version). */
export const ZULIP_MERGE_BASE = ZULIP_VERSION;
