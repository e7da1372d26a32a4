/**
 * What a successful password login leaves behind (Zulip's email_on_new_login, which its web login
 * and POST /fetch_api_key both call): the user's last login time, and, when their
 * enable_login_emails setting is on (the default) and the account is not brand new, an email
 * saying when, from what and from where.
 */
import { nowSeconds } from "../../clock.ts";
import { userSetting } from "../../model/user-settings.ts";
import type { UserRow } from "../../store/schema/database.ts";
import type { Db } from "../../store/schema/types.ts";
import { updateUser } from "../../store/users/users.ts";
import type { DoEnv, RequestOrigin } from "../context.ts";
import { newLoginEmail, type LoginFacts } from "../email/templates/new-login.ts";
import { doQueueAccountEmail, emailSite } from "./account-links.ts";

/** Zulip's JUST_CREATED_THRESHOLD: the login that follows a sign-up is not news to its owner. */
const JUST_CREATED_SECONDS = 60;

/** Browsers by a mark of their User-Agent, most specific first (Edge and Opera also say Chrome; Chrome also says Safari). */
const BROWSERS: ReadonlyArray<[RegExp, string]> = [
  [/zulip/, "Zulip"],
  [/edg(e|a|ios)?\//, "Edge"],
  [/opr\/|opera/, "Opera"],
  [/firefox|fxios/, "Firefox"],
  [/chromium/, "Chromium"],
  [/chrome|crios/, "Chrome"],
  [/safari/, "Safari"],
  [/msie|trident/, "Internet Explorer"],
];

/** Operating systems by a mark of the User-Agent (Android also says Linux; iOS also says Mac OS X). */
const SYSTEMS: ReadonlyArray<[RegExp, string]> = [
  [/windows/, "Windows"],
  [/android/, "Android"],
  [/iphone|ipad|ipod|\bios\b/, "iOS"],
  [/macintosh|mac os x/, "macOS"],
  [/\bcros\b/, "ChromeOS"],
  [/linux/, "Linux"],
];

function firstMatch(table: ReadonlyArray<[RegExp, string]>, agent: string): string | null {
  return table.find(([mark]) => mark.test(agent))?.[1] ?? null;
}

/**
 * The device of a login as the notice names it: the browser (or the client's own name, for an
 * API client that is no browser) and the operating system.
 */
export function loginDevice(userAgent: string, client: string): { browser: string; os: string } {
  const agent = userAgent.toLowerCase();
  const named = client !== "" && client !== "Unspecified" && client !== "Mozilla" ? client : null;
  return { browser: firstMatch(BROWSERS, agent) ?? named ?? "An unknown browser", os: firstMatch(SYSTEMS, agent) ?? "an unknown operating system" };
}

/** A moment as the notice shows it: in the user's time zone (UTC when unset or unknown), in their 12- or 24-hour format. */
export function loginTime(user: UserRow, ms: number): string {
  const options: Intl.DateTimeFormatOptions = {
    weekday: "long", year: "numeric", month: "long", day: "numeric", hour: "numeric", minute: "2-digit",
    hour12: userSetting(user, "twenty_four_hour_time") !== true, timeZoneName: "short",
  };
  try {
    return new Intl.DateTimeFormat("en-US", { ...options, timeZone: user.timezone || "UTC" }).format(ms);
  } catch {
    return new Intl.DateTimeFormat("en-US", { ...options, timeZone: "UTC" }).format(ms);
  }
}

/** Records a password login of `user` (its time) and queues the new-login notice if the user gets them. */
export async function doRecordLogin(tx: Db, env: Pick<DoEnv, "realm" | "config" | "clock" | "client" | "emit"> & { origin: RequestOrigin | null }, user: UserRow): Promise<void> {
  const now = nowSeconds(env.clock);
  await updateUser(tx, env.realm.id, user.id, { last_login: now });
  if (userSetting(user, "enable_login_emails") !== true || now - user.date_joined <= JUST_CREATED_SECONDS) return;
  const device = loginDevice(env.origin?.userAgent ?? "", env.client);
  const facts: LoginFacts = { time: loginTime(user, env.clock.nowMs()), ...device, ip: env.origin?.ip || "an unknown IP address" };
  await doQueueAccountEmail(tx, env, { to: user.delivery_email, ...newLoginEmail(user.delivery_email, user.full_name, emailSite(env), facts, `${env.config.externalUrl}/`) });
}
