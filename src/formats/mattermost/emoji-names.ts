/**
 * Mattermost's emoji names in Zulip's terms. Both take their names from emoji-datasource's short
 * names, but Zulip joins words with "_" where the datasource has "-" (`man-running`,
 * `flag-de`), gives a few country flags bare codes, and moved a few names to other emoji
 * (Zulip's `smile` is the slight smile; Mattermost's is the grin Zulip calls `big_smile`). The
 * table lists the names whose emoji is elsewhere in Zulip: it was made by comparing every
 * datasource short name with the emoji Parley's (Zulip's) name table gives it.
 */

/** Mattermost (datasource) name -> Zulip name, where the hyphen rule alone gives the wrong emoji. */
const MOVED: ReadonlyMap<string, string> = new Map([
  ["smile", "big_smile"],
  ["cat", "cat_face"],
  ["dog", "dog_face"],
  ["rabbit", "rabbit_face"],
  ["up", "squared_up_with_exclamation_mark"],
  ["fried_egg", "cooking"],
  ["woman-with-bunny-ears-partying", "women_with_bunny_ears_partying"],
  ["man-with-bunny-ears-partying", "men_with_bunny_ears_partying"],
]);

/** Country flags Zulip names by their bare code (`:de:`, not `:flag_de:`). */
const BARE_FLAGS = new Set(["cn", "de", "es", "fr", "gb", "it", "jp", "kr", "ru", "us"]);

/**
 * The Zulip name of a Mattermost emoji name. Custom emoji keep their names (pass them in
 * `custom`); `-1` and `+1` are the same in both. Names neither knows pass through unchanged.
 */
export function zulipEmojiName(name: string, custom: ReadonlySet<string>): string {
  if (custom.has(name)) return name;
  const moved = MOVED.get(name);
  if (moved !== undefined) return moved;
  const flag = /^flag-([a-z]{2})$/.exec(name);
  if (flag !== null && BARE_FLAGS.has(flag[1])) return flag[1];
  return name.replace(/(?<=[a-z0-9])-(?=[a-z0-9])/g, "_");
}
