/** The user's own settings screens: profile (name, email address, password), notifications and display. */
import { useState } from "preact/hooks";
import type { UserSettings } from "../../api/types.ts";
import { changeFullName, changePassword, saveSetting, type BooleanSetting } from "../../state/settings.ts";
import { askPermission, permission } from "../../state/notifications.ts";
import { me, settings } from "../../state/store.ts";
import { ActionStatus, Field, NumberSelect, useAction } from "../forms/action.tsx";
import { EmailForm } from "./EmailForm.tsx";

function NameForm() {
  const [name, setName] = useState(me.value?.full_name ?? "");
  const action = useAction();
  return (
    <form
      class="settings-form"
      aria-labelledby="name-title"
      onSubmit={(e) => {
        e.preventDefault();
        void action.run(() => changeFullName(name), "Your name was changed.");
      }}
    >
      <h3 id="name-title">Your account</h3>
      <p class="settings-note">Email: {me.value?.email}</p>
      <Field label="Full name" autocomplete="name" required value={name} onValue={setName} />
      <ActionStatus action={action} />
      <button type="submit" class="button-primary" disabled={action.busy || name.trim() === ""}>
        Save name
      </button>
    </form>
  );
}

function PasswordForm() {
  const [oldPassword, setOld] = useState("");
  const [newPassword, setNew] = useState("");
  const action = useAction();
  async function submit(e: Event): Promise<void> {
    e.preventDefault();
    if (await action.run(() => changePassword(oldPassword, newPassword), "Your password was changed.")) {
      setOld("");
      setNew("");
    }
  }
  return (
    <form class="settings-form" aria-labelledby="password-title" onSubmit={submit}>
      <h3 id="password-title">Password</h3>
      <Field label="Current password" type="password" autocomplete="current-password" required value={oldPassword} onValue={setOld} />
      <Field label="New password" type="password" autocomplete="new-password" required value={newPassword} onValue={setNew} />
      <ActionStatus action={action} />
      <button type="submit" class="button-primary" disabled={action.busy}>
        Change password
      </button>
    </form>
  );
}

/** Name, email address and password. */
export function ProfileScreen() {
  return (
    <>
      <NameForm />
      <EmailForm />
      <PasswordForm />
    </>
  );
}

/** The settings that turn desktop notifications on. */
const DESKTOP_SETTINGS: ReadonlySet<BooleanSetting> = new Set(["enable_desktop_notifications", "enable_stream_desktop_notifications", "enable_followed_topic_desktop_notifications"]);

/** A checkbox saving one boolean setting as it changes. */
export function SettingCheckbox({ name, label }: { name: BooleanSetting; label: string }) {
  const action = useAction();
  return (
    <div class="setting-row">
      <label class="checkbox-label">
        <input
          type="checkbox"
          checked={settings.value[name] === true}
          disabled={action.busy}
          onChange={(e) => {
            const on = e.currentTarget.checked;
            // Turning desktop notifications on asks the browser's permission too (the click allows the prompt).
            if (on && DESKTOP_SETTINGS.has(name)) void askPermission();
            void action.run(() => saveSetting(name, on));
          }}
        />
        {label}
      </label>
      <ActionStatus action={action} />
    </div>
  );
}

/** Whether this browser lets the app notify, and the button that asks it. */
function BrowserPermission() {
  const action = useAction();
  const state = permission.value;
  if (state === "granted") return <p class="settings-note">This browser shows Parley's notifications while Parley is open in a tab.</p>;
  if (state === "unsupported") return <p class="settings-note">This browser cannot show desktop notifications.</p>;
  if (state === "denied") return <p class="settings-note">This browser blocks notifications from this site: allow them in its site settings to get desktop notifications.</p>;
  return (
    <div class="setting-row">
      <p class="settings-note">Desktop notifications need this browser's permission.</p>
      <button type="button" class="button-quiet" disabled={action.busy} onClick={() => void action.run(askPermission)}>
        Allow desktop notifications
      </button>
      <ActionStatus action={action} />
    </div>
  );
}

/** Notification settings. */
export function NotificationsScreen() {
  return (
    <fieldset class="settings-form">
      <legend>Notifications</legend>
      <BrowserPermission />
      <SettingCheckbox name="enable_desktop_notifications" label="Desktop notifications for direct messages and mentions" />
      <SettingCheckbox name="enable_stream_desktop_notifications" label="Desktop notifications for channel messages" />
      <SettingCheckbox name="enable_followed_topic_desktop_notifications" label="Desktop notifications for followed topics" />
      <SettingCheckbox name="enable_sounds" label="Audible notifications" />
      <SettingCheckbox name="enable_stream_audible_notifications" label="Audible notifications for channel messages" />
      <SettingCheckbox name="enable_followed_topic_audible_notifications" label="Audible notifications for followed topics" />
      <SettingCheckbox name="wildcard_mentions_notify" label="Notify me of @all and @everyone mentions" />
      <SettingCheckbox name="enable_offline_email_notifications" label="Email me when I am offline" />
      <SettingCheckbox name="enable_offline_push_notifications" label="Mobile notifications when I am offline" />
      <SettingCheckbox name="enable_login_emails" label="Email me when someone logs in to my account" />
    </fieldset>
  );
}

/** Zulip's color_scheme values. */
const THEMES: ReadonlyArray<{ value: UserSettings["color_scheme"]; label: string }> = [
  { value: 1, label: "Automatic (as the system)" },
  { value: 2, label: "Dark" },
  { value: 3, label: "Light" },
];

function ThemeSelect() {
  const action = useAction();
  return (
    <div class="setting-row">
      <label>
        Theme
        <NumberSelect value={settings.value.color_scheme} choices={THEMES} disabled={action.busy} onValue={(value) => void action.run(() => saveSetting("color_scheme", value))} />
      </label>
      <ActionStatus action={action} />
    </div>
  );
}

/** Zulip's web_home_view values: the view an empty address opens. */
const HOME_VIEWS = [
  { name: "inbox", label: "Inbox" },
  { name: "recent_topics", label: "Recent conversations" },
  { name: "all_messages", label: "Combined feed" },
] as const;

function HomeViewSelect() {
  const action = useAction();
  const at = HOME_VIEWS.findIndex((v) => v.name === (settings.value.web_home_view ?? "inbox"));
  return (
    <div class="setting-row">
      <label>
        Home view
        <NumberSelect value={at} choices={HOME_VIEWS.map((v, i) => ({ value: i, label: v.label }))} disabled={action.busy} onValue={(i) => void action.run(() => saveSetting("web_home_view", HOME_VIEWS[i].name))} />
      </label>
      <ActionStatus action={action} />
    </div>
  );
}

/** Display settings: theme, home view, time format, how Enter behaves. */
export function DisplayScreen() {
  return (
    <fieldset class="settings-form">
      <legend>Display</legend>
      <ThemeSelect />
      <HomeViewSelect />
      <SettingCheckbox name="twenty_four_hour_time" label="Use 24-hour time" />
      <SettingCheckbox name="enter_sends" label="Send messages with Enter (Shift+Enter for a new line)" />
    </fieldset>
  );
}
