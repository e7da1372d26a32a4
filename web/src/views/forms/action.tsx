/** Form pieces: a call to the server (busy, then its error or a confirmation) and its display, labelled fields, and selects among numbers. */
import { useEffect, useState } from "preact/hooks";
import { errorText } from "../../state/errors.ts";

/** The state of a form's action and the function that runs it. */
export type Action = {
  busy: boolean;
  error: string | null;
  done: string | null;
  /** Runs `work`; on success shows `doneText` (if any), on failure the server's message. Resolves to whether it succeeded. */
  run: (work: () => Promise<unknown>, doneText?: string) => Promise<boolean>;
};

/** A form action's state. */
export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  async function run(work: () => Promise<unknown>, doneText?: string): Promise<boolean> {
    setBusy(true);
    setError(null);
    setDone(null);
    try {
      await work();
      setDone(doneText ?? null);
      return true;
    } catch (err) {
      setError(errorText(err));
      return false;
    } finally {
      setBusy(false);
    }
  }
  return { busy, error, done, run };
}

/** An action run once, when the component appears (a screen loading its data). */
export function useLoad(load: () => Promise<unknown>): Action {
  const action = useAction();
  useEffect(() => void action.run(load), []);
  return action;
}

/** The outcome of an action: the error as an alert, or the confirmation as a status. */
export function ActionStatus({ action }: { action: Action }) {
  if (action.error !== null) {
    return (
      <p class="form-error" role="alert">
        {action.error}
      </p>
    );
  }
  if (action.done !== null) {
    return (
      <p class="form-done" role="status">
        {action.done}
      </p>
    );
  }
  return null;
}

/** A labelled text field (the label names it for screen readers and tests). */
export function Field(props: { label: string; value: string; onValue: (value: string) => void; type?: "text" | "email" | "password"; name?: string; autocomplete?: string; required?: boolean; maxLength?: number }) {
  const { label, onValue, type, ...input } = props;
  const onInput = (e: { currentTarget: HTMLInputElement }) => onValue(e.currentTarget.value);
  // One element per type: Preact types each input type's attributes apart.
  return (
    <label>
      {label}
      {type === "password" ? <input type="password" {...input} onInput={onInput} /> : type === "email" ? <input type="email" {...input} onInput={onInput} /> : <input type="text" {...input} onInput={onInput} />}
    </label>
  );
}

/**
 * A select among numeric values (sent as text, read back with Number). A value that is none of
 * the choices shows as `otherLabel`, a disabled option kept until another is chosen (a custom
 * group where the choices are the system groups). `label` names a select no label wraps.
 */
export function NumberSelect(props: { value: number | undefined; choices: ReadonlyArray<{ value: number; label: string }>; onValue: (value: number) => void; disabled?: boolean; label?: string; otherLabel?: string }) {
  const known = props.value !== undefined && props.choices.some((c) => c.value === props.value);
  return (
    <select aria-label={props.label} value={known ? String(props.value) : "other"} disabled={props.disabled} onChange={(e) => props.onValue(Number(e.currentTarget.value))}>
      {!known && props.otherLabel !== undefined && (
        <option value="other" disabled>
          {props.otherLabel}
        </option>
      )}
      <Options choices={props.choices} />
    </select>
  );
}

/** A select's options from numeric values (sent as text, read back with Number). */
export function Options({ choices }: { choices: ReadonlyArray<{ value: number; label: string }> }) {
  return (
    <>
      {choices.map((c) => (
        <option key={c.value} value={String(c.value)}>
          {c.label}
        </option>
      ))}
    </>
  );
}
