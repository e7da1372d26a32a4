/**
 * Slack's people as the shared model's users: roles from Slack's owner, admin and guest
 * (restricted) marks, deleted accounts deactivated, bots and apps as bots. An export without
 * addresses (Slack gives them only to some plans) gets made-up ones, `<name>@<org>.invalid`, and
 * an address two accounts share is made unique. People a message names who are not in
 * users.json (integrations posting as a bot, accounts of other workspaces) are added as
 * deactivated users or bots (`Roster.sender`), so every message keeps its author.
 */
import type { ForeignRole, ForeignUser } from "../foreign/organization.ts";
import type { SlackMessage, SlackUser } from "./slack-rows.ts";

function roleOf(u: SlackUser): ForeignRole {
  if (u.is_primary_owner || u.is_owner) return "owner";
  if (u.is_admin) return "administrator";
  if (u.is_restricted || u.is_ultra_restricted) return "guest";
  return "member";
}

/** The name Slack shows for a person: their full name, else their display name, else their handle. */
export function slackFullName(u: SlackUser): string {
  const name = u.real_name ?? u.profile.real_name ?? "";
  return (name.trim() || u.profile.display_name?.trim() || u.name || u.id).slice(0, 100);
}

function localPart(name: string, fallback: string): string {
  const cleaned = name.toLowerCase().replace(/[^a-z0-9._-]+/g, "-").replace(/^[-.]+|[-.]+$/g, "");
  return cleaned || fallback.toLowerCase();
}

/** Everyone the organization will hold, by Slack id. */
export class Roster {
  readonly users = new Map<string, ForeignUser>();
  readonly #emails = new Set<string>();

  constructor(private readonly stringId: string, private readonly created: number) {}

  #email(wanted: string | undefined, name: string, id: string): string {
    let email = wanted?.includes("@") ? wanted.trim() : `${localPart(name, id)}@${this.stringId}.invalid`;
    if (this.#emails.has(email.toLowerCase())) email = `${localPart(name, id)}-${id.toLowerCase()}@${this.stringId}.invalid`;
    this.#emails.add(email.toLowerCase());
    return email;
  }

  /** Adds a person of users.json. */
  addSlackUser(u: SlackUser): void {
    const bot = u.is_bot || u.is_app_user || u.id === "USLACKBOT";
    this.users.set(u.id, {
      key: u.id,
      fullName: slackFullName(u),
      email: this.#email(bot ? undefined : u.profile.email, u.name || slackFullName(u), u.id),
      role: bot ? "member" : roleOf(u),
      isActive: !u.deleted,
      ...(bot ? { bot: { ownerKey: null } } : {}),
      timezone: u.tz ?? "",
      dateJoined: this.created,
    });
  }

  /** The key of a message's author, adding a deactivated user or a bot for one users.json lacks (null: no author at all). */
  sender(m: SlackMessage): string | null {
    const key = m.user ?? m.bot_id ?? null;
    if (key === null || this.users.has(key)) return key;
    const isBot = m.user === undefined;
    const name = (isBot ? m.bot_profile?.name ?? m.username : m.username) ?? key;
    this.users.set(key, {
      key,
      fullName: name.slice(0, 100),
      email: this.#email(undefined, name, key),
      role: "member",
      isActive: isBot,
      ...(isBot ? { bot: { ownerKey: null } } : {}),
      timezone: "",
      dateJoined: this.created,
    });
    return key;
  }

  /** A person's name, for mentions (null: unknown). */
  name(id: string): string | null {
    return this.users.get(id)?.fullName ?? null;
  }
}
