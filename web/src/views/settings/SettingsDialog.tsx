/**
 * The settings dialog, opened from the top bar: the user's own screens, for administrators the
 * organization, its channels and its users, and for everyone the organization's user groups,
 * linkifiers and custom emoji. Only the screens the user's role allows are offered; the server
 * checks every change all the same.
 */
import type { JSX } from "preact";
import { useEffect, useRef } from "preact/hooks";
import { canCreateInviteLinks, canSendInvites, loadGroups } from "../../state/admin.ts";
import { closeSettings, isAdmin, myRole, openScreen, openSettings, ROLE, type Screen } from "../../state/settings.ts";
import { ChannelsScreen } from "../admin/Channels.tsx";
import { CustomEmojiScreen } from "../admin/CustomEmoji.tsx";
import { DataExportsScreen } from "../admin/DataExports.tsx";
import { GroupsScreen } from "../admin/Groups.tsx";
import { LinkifiersScreen } from "../admin/Linkifiers.tsx";
import { OrganizationScreen } from "../admin/Organization.tsx";
import { InviteScreen, UsersScreen } from "../admin/Users.tsx";
import { DisplayScreen, NotificationsScreen, ProfileScreen } from "./Personal.tsx";

type Tab = { screen: Screen; label: string; view: () => JSX.Element };

const PERSONAL: readonly Tab[] = [
  { screen: "profile", label: "Profile", view: ProfileScreen },
  { screen: "notifications", label: "Notifications", view: NotificationsScreen },
  { screen: "display", label: "Display", view: DisplayScreen },
];

const ADMIN: readonly Tab[] = [
  { screen: "organization", label: "Organization", view: OrganizationScreen },
  { screen: "channels", label: "Channels", view: ChannelsScreen },
  { screen: "users", label: "Users", view: UsersScreen },
  { screen: "exports", label: "Data exports", view: DataExportsScreen },
];

const INVITE: Tab = { screen: "invite", label: "Invite people", view: InviteScreen };

/** The organization's screens everyone sees (what each lets one change is the server's rules'). */
const SHARED: readonly Tab[] = [
  { screen: "groups", label: "User groups", view: GroupsScreen },
  { screen: "linkifiers", label: "Linkifiers", view: LinkifiersScreen },
  { screen: "emoji", label: "Custom emoji", view: CustomEmojiScreen },
];

/** The screens this user may open (guests may not use the user groups). */
function tabsFor(admin: boolean, invite: boolean): readonly Tab[] {
  const shared = myRole.value === ROLE.guest ? SHARED.filter((t) => t.screen !== "groups") : SHARED;
  if (admin) return [...PERSONAL, ...ADMIN, ...shared];
  return invite ? [...PERSONAL, INVITE, ...shared] : [...PERSONAL, ...shared];
}

/** The top bar's button that opens the dialog. */
export function SettingsButton() {
  return (
    <button type="button" class="button-quiet" aria-haspopup="dialog" onClick={() => openSettings()}>
      Settings
    </button>
  );
}

function TabList({ tabs, current }: { tabs: readonly Tab[]; current: Screen }) {
  function onKeyDown(e: KeyboardEvent): void {
    const step = e.key === "ArrowDown" || e.key === "ArrowRight" ? 1 : e.key === "ArrowUp" || e.key === "ArrowLeft" ? -1 : 0;
    if (step === 0) return;
    e.preventDefault();
    const at = tabs.findIndex((t) => t.screen === current);
    const next = tabs[(at + step + tabs.length) % tabs.length];
    openSettings(next.screen);
    document.getElementById(`settings-tab-${next.screen}`)?.focus();
  }
  return (
    <div class="settings-tabs" role="tablist" aria-orientation="vertical" aria-label="Settings screens" onKeyDown={onKeyDown}>
      {tabs.map((t) => (
        <button
          key={t.screen}
          type="button"
          role="tab"
          id={`settings-tab-${t.screen}`}
          aria-selected={t.screen === current}
          aria-controls="settings-panel"
          tabIndex={t.screen === current ? 0 : -1}
          class={t.screen === current ? "active" : undefined}
          onClick={() => openSettings(t.screen)}
        >
          {t.label}
        </button>
      ))}
    </div>
  );
}

/** The dialog (nothing while closed). */
export function SettingsDialog() {
  const screen = openScreen.value;
  const dialog = useRef<HTMLElement>(null);
  const open = screen !== null;
  useEffect(() => {
    if (!open) return;
    const opener = document.activeElement;
    dialog.current?.focus();
    // The permission choices and checks need the groups.
    void loadGroups();
    return () => {
      if (opener instanceof HTMLElement) opener.focus();
    };
  }, [open]);
  if (screen === null) return null;
  const tabs = tabsFor(isAdmin.value, canSendInvites.value || canCreateInviteLinks.value);
  const tab = tabs.find((t) => t.screen === screen) ?? tabs[0];
  const View = tab.view;
  function onKeyDown(e: KeyboardEvent): void {
    // The app's shortcuts stay out of the dialog.
    e.stopPropagation();
    if (e.key === "Escape") closeSettings();
  }
  return (
    <div class="overlay" onClick={(e) => e.target === e.currentTarget && closeSettings()}>
      <section class="settings-dialog" role="dialog" aria-modal="true" aria-labelledby="settings-title" tabIndex={-1} ref={dialog} onKeyDown={onKeyDown}>
        <header class="settings-header">
          <h2 id="settings-title">Settings</h2>
          <button type="button" class="button-quiet" onClick={closeSettings}>
            Close
          </button>
        </header>
        <div class="settings-body">
          <TabList tabs={tabs} current={tab.screen} />
          <div class="settings-panel" role="tabpanel" id="settings-panel" aria-labelledby={`settings-tab-${tab.screen}`}>
            <View key={tab.screen} />
          </div>
        </div>
      </section>
    </div>
  );
}
