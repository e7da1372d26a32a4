/** Who may see a user's real (delivery) email address (Zulip's email_address_visibility rules). */
import { EMAIL_VISIBILITY } from "../model/emails.ts";
import { ROLE } from "../model/roles.ts";
import type { UserRow } from "../store/schema/database.ts";

/** The email_address_visibility values whose real addresses each role may see (Zulip's table). */
const VISIBLE_EMAILS_BY_ROLE: Record<number, readonly number[]> = {
  [ROLE.owner]: [EMAIL_VISIBILITY.everyone, EMAIL_VISIBILITY.members, EMAIL_VISIBILITY.moderators, EMAIL_VISIBILITY.admins],
  [ROLE.administrator]: [EMAIL_VISIBILITY.everyone, EMAIL_VISIBILITY.members, EMAIL_VISIBILITY.moderators, EMAIL_VISIBILITY.admins],
  [ROLE.moderator]: [EMAIL_VISIBILITY.everyone, EMAIL_VISIBILITY.members, EMAIL_VISIBILITY.moderators],
  [ROLE.member]: [EMAIL_VISIBILITY.everyone, EMAIL_VISIBILITY.members],
  [ROLE.guest]: [EMAIL_VISIBILITY.everyone],
};

/** Who is looking: a user, or null for an unauthenticated (public-access) visitor. */
export type Viewer = Pick<UserRow, "id" | "role"> | null;

/** Whether the viewer may see the target's real (delivery) email address. */
export function canSeeDeliveryEmail(viewer: Viewer, target: Pick<UserRow, "id" | "email_address_visibility">): boolean {
  if (viewer === null) return false;
  if (viewer.id === target.id) return true;
  return (VISIBLE_EMAILS_BY_ROLE[viewer.role] ?? []).includes(target.email_address_visibility);
}
