/** What the server advertises about its API level. */

/** SPEC.md's newest feature-level entry; every behaviour tagged up to it is kept. */
export const FEATURE_LEVEL = 420;

/**
 * The upstream release whose API the feature level belongs to. Upstream's API changelog lists
 * level 420 among "Changes in Zulip 11.0", before level 421 ("used for the Zulip 11.0
 * release"), so a server at 420 is a development version of 11.0: upstream would report
 * `11.0-dev...`, which clients order below 11.0 itself (zulip-mobile's ZulipVersion).
 */
const UPSTREAM_VERSION = "11.0-dev";

/** Parley's own release (package.json's version). */
export const PARLEY_VERSION = "0.1.0";

/**
 * The version string shown as zulip_version / service_version: the upstream version first, so
 * that clients that parse or compare it read 11.0-dev, then Parley's release after a `+` (build
 * metadata, which version parsers skip).
 */
export const ZULIP_VERSION = `${UPSTREAM_VERSION}+parley-${PARLEY_VERSION}`;

/** The merge base reported alongside the version (no upstream tree: same as the version). */
export const ZULIP_MERGE_BASE = ZULIP_VERSION;
