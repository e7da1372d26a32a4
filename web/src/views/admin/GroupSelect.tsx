/** A choice among the system groups for a permission setting ("Who can post", "Who can invite"). */
import type { GroupSettingValue } from "../../api/types.ts";
import { systemGroupId } from "../../state/admin.ts";
import { NumberSelect } from "../forms/action.tsx";

/** The system groups, widest first (each role group holds the roles above it). */
const SYSTEM_CHOICES: ReadonlyArray<{ group: string; label: string }> = [
  { group: "role:everyone", label: "Everyone, guests included" },
  { group: "role:members", label: "Members" },
  { group: "role:fullmembers", label: "Full members" },
  { group: "role:moderators", label: "Moderators" },
  { group: "role:administrators", label: "Administrators" },
  { group: "role:owners", label: "Owners" },
  { group: "role:nobody", label: "Nobody" },
];

/** The select: `value` is the setting's current value; a custom group shows as such and is kept until changed. */
export function GroupSelect(props: { label: string; value: GroupSettingValue | undefined; everyone: boolean; disabled?: boolean; onChange: (groupId: number) => void }) {
  const choices = SYSTEM_CHOICES.flatMap((c) => {
    const id = systemGroupId(c.group);
    return id === undefined || (!props.everyone && c.group === "role:everyone") ? [] : [{ value: id, label: c.label }];
  });
  return (
    <label class="setting-row">
      {props.label}
      <NumberSelect value={typeof props.value === "number" ? props.value : undefined} choices={choices} disabled={props.disabled} onValue={props.onChange} otherLabel="A custom group" />
    </label>
  );
}
