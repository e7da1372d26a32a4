/** realm_bot events, sent only to those who administer the bot (its owner and administrators). */

/** A bot the recipients now administer (whole Bot object). */
type RealmBotAddEvent = { type: "realm_bot"; op: "add"; bot: Record<string, unknown> };

/** One change to a bot: `bot` holds `user_id` and the changed field only. */
type RealmBotUpdateEvent = { type: "realm_bot"; op: "update"; bot: { user_id: number } & Record<string, unknown> };

/** A bot the recipient no longer administers (e.g. its ownership moved away from them). */
type RealmBotDeleteEvent = { type: "realm_bot"; op: "delete"; bot: { user_id: number } };

/** Every realm_bot event. */
export type RealmBotEvent = RealmBotAddEvent | RealmBotUpdateEvent | RealmBotDeleteEvent;

/** The event giving a bot to those who administer it. */
export function realmBotAddEvent(bot: Record<string, unknown>): RealmBotAddEvent {
  return { type: "realm_bot", op: "add", bot };
}

/** The event for one changed property of a bot (`{full_name}`, `{owner_id}`, `{is_active}`, `{api_key}`). */
export function realmBotUpdateEvent(botId: number, change: Record<string, unknown>): RealmBotUpdateEvent {
  return { type: "realm_bot", op: "update", bot: { user_id: botId, ...change } };
}

/** The event taking a bot away from someone who no longer administers it. */
export function realmBotDeleteEvent(botId: number): RealmBotDeleteEvent {
  return { type: "realm_bot", op: "delete", bot: { user_id: botId } };
}
