/** A labelled checkbox whose change is handed on at once (a setting saved as it is switched). */

/** The checkbox; `onValue` gets its new state. */
export function Checkbox(props: { label: string; checked: boolean; disabled?: boolean; onValue: (checked: boolean) => void }) {
  return (
    <label class="checkbox-label">
      <input type="checkbox" checked={props.checked} disabled={props.disabled} onChange={(e) => props.onValue(e.currentTarget.checked)} />
      {props.label}
    </label>
  );
}
