/**
 * Every route file of http/routes/, imported by name so that the compiled server is one bundle
 * (bin/server-build.js) rather than a directory listed at start. Each file exports its
 * `endpoints` (under /api/v1, answered with the envelope) or, for routes that answer with file
 * bytes, `registerRoutes`. test/unit/route-table.test.ts checks that every file is here.
 */
import * as accounts from "./routes/accounts.ts";
import * as alertWords from "./routes/alert-words.ts";
import * as attachments from "./routes/attachments.ts";
import * as auth from "./routes/auth.ts";
import * as avatar from "./routes/avatar.ts";
import * as bots from "./routes/bots.ts";
import * as channelFolders from "./routes/channel-folders.ts";
import * as channelsCreate from "./routes/channels-create.ts";
import * as defaultStreams from "./routes/default-streams.ts";
import * as drafts from "./routes/drafts.ts";
import * as events from "./routes/events.ts";
import * as exportDownload from "./routes/export-download.ts";
import * as exportRoutes from "./routes/export.ts";
import * as files from "./routes/files.ts";
import * as invites from "./routes/invites.ts";
import * as linkifiers from "./routes/linkifiers.ts";
import * as messagesDelete from "./routes/messages-delete.ts";
import * as messagesEdit from "./routes/messages-edit.ts";
import * as messagesFlags from "./routes/messages-flags.ts";
import * as messagesRead from "./routes/messages-read.ts";
import * as messagesRender from "./routes/messages-render.ts";
import * as messagesReport from "./routes/messages-report.ts";
import * as messagesSend from "./routes/messages-send.ts";
import * as mutedUsers from "./routes/muted-users.ts";
import * as navigationViews from "./routes/navigation-views.ts";
import * as playgrounds from "./routes/playgrounds.ts";
import * as presence from "./routes/presence.ts";
import * as profileFields from "./routes/profile-fields.ts";
import * as push from "./routes/push.ts";
import * as reactions from "./routes/reactions.ts";
import * as readReceipts from "./routes/read-receipts.ts";
import * as realmDomains from "./routes/realm-domains.ts";
import * as realmEmoji from "./routes/realm-emoji.ts";
import * as realm from "./routes/realm.ts";
import * as reminders from "./routes/reminders.ts";
import * as savedSnippets from "./routes/saved-snippets.ts";
import * as scheduledMessages from "./routes/scheduled-messages.ts";
import * as serverSettings from "./routes/server-settings.ts";
import * as settings from "./routes/settings.ts";
import * as staticEmoji from "./routes/static-emoji.ts";
import * as staticImages from "./routes/static-images.ts";
import * as streams from "./routes/streams.ts";
import * as submessages from "./routes/submessages.ts";
import * as subscriptions from "./routes/subscriptions.ts";
import * as typing from "./routes/typing.ts";
import * as uploads from "./routes/uploads.ts";
import * as userGroups from "./routes/user-groups.ts";
import * as userStatus from "./routes/user-status.ts";
import * as userTopics from "./routes/user-topics.ts";
import * as users from "./routes/users.ts";
import * as webApp from "./routes/web-app.ts";
import * as webhooks from "./routes/webhooks.ts";
import type { Endpoint, RawRoutes } from "./endpoint.ts";

type RouteModule = { endpoints?: Endpoint[]; registerRoutes?: RawRoutes };

/** The route files by name (their file name without `.ts`). */
export const ROUTE_FILES: Readonly<Record<string, RouteModule>> = {
  "accounts": accounts,
  "alert-words": alertWords,
  "attachments": attachments,
  "auth": auth,
  "avatar": avatar,
  "bots": bots,
  "channel-folders": channelFolders,
  "channels-create": channelsCreate,
  "default-streams": defaultStreams,
  "drafts": drafts,
  "events": events,
  "export": exportRoutes,
  "export-download": exportDownload,
  "files": files,
  "invites": invites,
  "linkifiers": linkifiers,
  "messages-delete": messagesDelete,
  "messages-edit": messagesEdit,
  "messages-flags": messagesFlags,
  "messages-read": messagesRead,
  "messages-render": messagesRender,
  "messages-report": messagesReport,
  "messages-send": messagesSend,
  "muted-users": mutedUsers,
  "navigation-views": navigationViews,
  "playgrounds": playgrounds,
  "presence": presence,
  "profile-fields": profileFields,
  "push": push,
  "reactions": reactions,
  "read-receipts": readReceipts,
  "realm-domains": realmDomains,
  "realm-emoji": realmEmoji,
  "realm": realm,
  "reminders": reminders,
  "saved-snippets": savedSnippets,
  "scheduled-messages": scheduledMessages,
  "server-settings": serverSettings,
  "settings": settings,
  "static-emoji": staticEmoji,
  "static-images": staticImages,
  "streams": streams,
  "submessages": submessages,
  "subscriptions": subscriptions,
  "typing": typing,
  "uploads": uploads,
  "user-groups": userGroups,
  "user-status": userStatus,
  "user-topics": userTopics,
  "users": users,
  "web-app": webApp,
  "webhooks": webhooks,
};
