/** A select and its button, to add one of several choices (a subscriber to a channel, a member to a group). */
import { useState } from "preact/hooks";
import { Options } from "./action.tsx";

/** `label` names the select, `placeholder` is its empty choice, `button` names the button; `onAdd` gets the chosen value. */
export function PickToAdd(props: { label: string; placeholder: string; button: string; choices: ReadonlyArray<{ value: number; label: string }>; busy: boolean; onAdd: (value: number) => Promise<unknown> }) {
  const [chosen, setChosen] = useState("");
  return (
    <form
      class="inline-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (chosen !== "") void props.onAdd(Number(chosen)).then(() => setChosen(""));
      }}
    >
      <label>
        {props.label}
        <select value={chosen} onChange={(e) => setChosen(e.currentTarget.value)}>
          <option value="">{props.placeholder}</option>
          <Options choices={props.choices} />
        </select>
      </label>
      <button type="submit" class="button-quiet" disabled={props.busy || chosen === ""}>
        {props.button}
      </button>
    </form>
  );
}
