/** The ordered list of migrations; each takes the engine so it can pick column types. */
import type { Migration } from "kysely";
import type { Engine } from "../schema/types.ts";
import { foundation } from "./0001-foundation.ts";
import { messagesMigration } from "./0002-messages.ts";
import { organizationMigration } from "./0003-organization.ts";
import { subscriptionPeriodsBackfill } from "./0004-subscription-periods.ts";
import { searchTokensMigration } from "./0005-search-tokens.ts";
import { readIndexesMigration } from "./0006-read-indexes.ts";
import { canCreateUsersMigration } from "./0007-can-create-users.ts";
import { presenceMigration } from "./0010-presence.ts";
import { draftsScheduledMigration } from "./0011-drafts-scheduled.ts";
import { alertWordsMutedUsersMigration } from "./0012-alert-words-muted-users.ts";
import { realmUserDefaultsMigration } from "./0013-realm-user-defaults.ts";
import { sidebarMigration } from "./0016-sidebar.ts";
import { defaultStreamsMigration } from "./0015-default-streams.ts";
import { outgoingWebhooksMigration } from "./0018-outgoing-webhooks.ts";
import { remindersMigration } from "./0019-reminders.ts";
import { pushMigration } from "./0020-push.ts";
import { pushNotificationsMigration } from "./0021-push-notifications.ts";
import { invitesMigration } from "./0022-invites.ts";
import { sessionsMigration } from "./0023-sessions.ts";
import { tableNotifyMigration } from "./0024-table-notify.ts";
import { unreadWatermarksMigration } from "./0025-unread-watermarks.ts";
import { realmTableNotifyMigration } from "./0026-realm-table-notify.ts";
import { topicExistsFunctionMigration } from "./0027-topic-exists-function.ts";
import { searchPendingListMigration } from "./0028-search-pending-list.ts";
import { streamRecipientsMigration } from "./0029-stream-recipients.ts";
import { userTableNotifyMigration } from "./0030-user-table-notify.ts";
import { pushTokenRelayMigration } from "./0031-push-token-relay.ts";
import { signupChecksMigration } from "./0032-signup-checks.ts";
import { welcomeMessageMigration } from "./0034-welcome-message.ts";
import { accountsMigration } from "./0035-accounts.ts";
import { emailNotificationsMigration } from "./0036-email-notifications.ts";
import { realmExportsMigration } from "./0037-realm-exports.ts";

/** All migrations by name; names sort in the order they run. */
export function migrations(engine: Engine): Record<string, Migration> {
  return {
    "0001-foundation": foundation(engine),
    "0002-messages": messagesMigration(engine),
    "0003-organization": organizationMigration(engine),
    "0004-subscription-periods": subscriptionPeriodsBackfill(),
    "0005-search-tokens": searchTokensMigration(engine),
    "0006-read-indexes": readIndexesMigration(),
    "0007-can-create-users": canCreateUsersMigration(),
    "0010-presence": presenceMigration(engine),
    "0011-drafts-scheduled": draftsScheduledMigration(engine),
    "0012-alert-words-muted-users": alertWordsMutedUsersMigration(engine),
    "0013-realm-user-defaults": realmUserDefaultsMigration(),
    "0015-default-streams": defaultStreamsMigration(engine),
    // Named by its feature level when it was written; databases record the name.
    "0016-fl420": sidebarMigration(engine),
    "0018-outgoing-webhooks": outgoingWebhooksMigration(engine),
    "0019-reminders": remindersMigration(),
    "0020-push": pushMigration(engine),
    "0021-push-notifications": pushNotificationsMigration(),
    "0022-invites": invitesMigration(engine),
    "0023-sessions": sessionsMigration(engine),
    "0024-table-notify": tableNotifyMigration(engine),
    "0025-unread-watermarks": unreadWatermarksMigration(),
    "0026-realm-table-notify": realmTableNotifyMigration(engine),
    "0027-topic-exists-function": topicExistsFunctionMigration(engine),
    "0028-search-pending-list": searchPendingListMigration(engine),
    "0029-stream-recipients": streamRecipientsMigration(),
    "0030-user-table-notify": userTableNotifyMigration(engine),
    "0031-push-token-relay": pushTokenRelayMigration(engine),
    "0032-signup-checks": signupChecksMigration(engine),
    "0034-welcome-message": welcomeMessageMigration(),
    "0035-accounts": accountsMigration(engine),
    "0036-email-notifications": emailNotificationsMigration(engine),
    "0037-realm-exports": realmExportsMigration(engine),
  };
}
