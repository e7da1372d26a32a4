/** The user's own settings for a channel they are subscribed to: colour, muting, pinning and notification overrides, each saved as it changes. */
import type { Subscription } from "../../api/types.ts";
import { NOTIFICATION_SETTINGS, notificationOn, setSubscriptionSetting, type SubscriptionSetting } from "../../state/channel-settings.ts";
import { ActionStatus, useAction } from "../forms/action.tsx";
import { Checkbox } from "../forms/Checkbox.tsx";

/** A colour as a colour input takes it: "#rrggbb" (the server also keeps "#rgb"). */
function sixDigitColor(color: string): string {
  const short = /^#([0-9a-f])([0-9a-f])([0-9a-f])$/i.exec(color);
  return short ? `#${short[1]}${short[1]}${short[2]}${short[2]}${short[3]}${short[3]}`.toLowerCase() : color.toLowerCase();
}

/** The section; `sub` is the user's subscription (kept current by its events). */
export function PersonalSettings({ sub }: { sub: Subscription }) {
  const action = useAction();
  const save = (property: SubscriptionSetting, value: boolean | string) => void action.run(() => setSubscriptionSetting(sub.stream_id, property, value));
  return (
    <section class="settings-form" aria-labelledby="channel-personal-title">
      <h3 id="channel-personal-title">Your settings</h3>
      <label class="color-row">
        <input type="color" value={sixDigitColor(sub.color)} disabled={action.busy} onChange={(e) => save("color", e.currentTarget.value)} />
        Channel colour
      </label>
      <Checkbox label="Mute channel" checked={sub.is_muted} disabled={action.busy} onValue={(on) => save("is_muted", on)} />
      <Checkbox label="Pin to top of the sidebar" checked={sub.pin_to_top} disabled={action.busy} onValue={(on) => save("pin_to_top", on)} />
      <fieldset>
        <legend>Notifications for this channel</legend>
        {NOTIFICATION_SETTINGS.map((n) => (
          <Checkbox key={n.name} label={n.label} checked={notificationOn(sub, n)} disabled={action.busy} onValue={(on) => save(n.name, on)} />
        ))}
      </fieldset>
      <ActionStatus action={action} />
    </section>
  );
}
