/**
 * `realm_export_consent`: the realm's active human administrators hear a user's consent to the
 * export of their private data when it changes, and when a user is created or reactivated
 * (upstream's do_change_user_setting, do_create_user and do_reactivate_user), so their list of
 * consents (GET /export/realm/consents) stays current.
 */
import { realmExportConsentEvent } from "../../events/kinds/realm-exports.ts";
import { userSetting } from "../../model/user-settings.ts";
import { isRealmAdmin } from "../../permissions/check.ts";
import { activeRealmMembers } from "../../store/channels/subscriptions.ts";
import type { UserRow } from "../../store/schema/database.ts";
import type { Db } from "../../store/schema/types.ts";
import type { Emit } from "../context.ts";

/** Sends the user's current consent to the realm's active human administrators (nothing for a bot). */
export async function emitExportConsent(tx: Db, realmId: number, user: UserRow, emit: Emit): Promise<void> {
  if (user.is_bot === 1) return;
  const admins = (await activeRealmMembers(tx, realmId)).filter((m) => isRealmAdmin(m) && m.is_bot === 0).map((m) => m.id);
  emit(realmExportConsentEvent(user.id, userSetting(user, "allow_private_data_export") === true), admins);
}
