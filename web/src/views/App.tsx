/** The whole page: the login form, or the sidebar, feed and compose box. */
import { useEffect } from "preact/hooks";
import * as compose from "../state/compose.ts";
import { narrow, showNarrow } from "../state/feed.ts";
import { parseHash } from "../state/narrow.ts";
import { me, phase, realmName, settings } from "../state/store.ts";
import { unreadCounts } from "../state/unread.ts";
import { view, viewOfHash } from "../state/view.ts";
import { ChannelBrowser, SubscribeNotice } from "./ChannelBrowser.tsx";
import { ChannelSettingsDialog } from "./channel-settings/ChannelSettings.tsx";
import { Compose } from "./Compose.tsx";
import { ComposeDialogs } from "./compose/ComposeDialogs.tsx";
import { Feed } from "./Feed.tsx";
import { Inbox } from "./Inbox.tsx";
import { joinToken } from "../state/join.ts";
import { Join } from "./Join.tsx";
import { accountPage, type AccountPage } from "../state/accounts.ts";
import { ConfirmEmail } from "./ConfirmEmail.tsx";
import { ResetPassword, ResetRequest } from "./PasswordReset.tsx";
import { installShortcuts } from "./keyboard.ts";
import { Login } from "./Login.tsx";
import { MessageDialogs } from "./MessageDialogs.tsx";
import { Recent } from "./Recent.tsx";
import { SettingsDialog } from "./settings/SettingsDialog.tsx";
import { ShortcutsHelp } from "./ShortcutsHelp.tsx";
import { Sidebar } from "./Sidebar.tsx";
import { pageTitle, TopBar } from "./TopBar.tsx";
import { UserList } from "./UserList.tsx";
import { useFaviconCount } from "./favicon.ts";
import { NotificationBanner } from "./NotificationBanner.tsx";
import { StatusDialog } from "./StatusDialog.tsx";
import { UserCard } from "./UserCard.tsx";

function Main() {
  useEffect(() => {
    const onHash = () => {
      view.value = viewOfHash(location.hash, settings.value.web_home_view);
      if (view.value !== "messages") return;
      const next = parseHash(location.hash, me.value?.user_id);
      void showNarrow(next);
      compose.followNarrow(next);
    };
    onHash();
    window.addEventListener("hashchange", onHash);
    const stopShortcuts = installShortcuts();
    return () => {
      window.removeEventListener("hashchange", onHash);
      stopShortcuts();
    };
  }, []);
  const unread = unreadCounts.value.total;
  useEffect(() => {
    document.title = `${unread > 0 ? `(${unread}) ` : ""}${pageTitle()} - ${realmName.value || "Parley"}`;
  }, [narrow.value, view.value, realmName.value, unread]);
  useFaviconCount(unread);
  return (
    <div class="app">
      <TopBar />
      <Sidebar />
      <main class="center" aria-label={pageTitle()}>
        <NotificationBanner />
        {view.value === "inbox" && <Inbox />}
        {view.value === "recent" && <Recent />}
        {view.value === "messages" && <Feed />}
        {view.value === "messages" && <SubscribeNotice />}
        <Compose />
      </main>
      <UserList />
      <SettingsDialog />
      <ChannelBrowser />
      <ChannelSettingsDialog />
      <MessageDialogs />
      <ShortcutsHelp />
      <ComposeDialogs />
      <UserCard />
      <StatusDialog />
    </div>
  );
}

/** The account page this tab was opened on. */
function Account({ page }: { page: AccountPage }) {
  if (page.kind === "reset-request") return <ResetRequest />;
  if (page.kind === "reset-password") return <ResetPassword uid={page.uid} token={page.token} />;
  return <ConfirmEmail confirmationKey={page.key} />;
}

/** The app root. */
export function App() {
  const token = joinToken.value;
  if (token !== null) return <Join token={token} />;
  const account = accountPage.value;
  if (account !== null) return <Account page={account} />;
  if (phase.value === "login") return <Login />;
  if (phase.value === "loading") {
    return (
      <p class="splash" role="status">
        Loading Parley…
      </p>
    );
  }
  return <Main />;
}
