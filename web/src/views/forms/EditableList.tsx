/**
 * A titled list of names that may be taken out one by one and added to from a select (a
 * channel's subscribers, a group's members or subgroups), with the outcome of the last change.
 * Without `remove` or `add`, it only lists.
 */
import { ActionStatus, useAction } from "./action.tsx";
import { PickToAdd } from "./PickToAdd.tsx";

type Item = { id: number; name: string };

/** `label` names the section and its list; `remove.word` is the remove button's text ("Remove"), named "<word> <name>". */
export function EditableList(props: {
  label: string;
  title: string;
  items: readonly Item[];
  empty: string;
  remove?: { word: string; run: (id: number) => Promise<unknown> };
  add?: { label: string; placeholder: string; button: string; choices: ReadonlyArray<{ value: number; label: string }>; run: (id: number) => Promise<unknown> };
}) {
  const action = useAction();
  const { remove, add } = props;
  return (
    <section aria-label={props.label}>
      <h4>{props.title}</h4>
      {props.items.length === 0 ? (
        <p class="settings-note">{props.empty}</p>
      ) : (
        <ul class="admin-list" aria-label={props.label}>
          {props.items.map((item) => (
            <li key={item.id}>
              <span class="admin-name">{item.name}</span>
              {remove !== undefined && (
                <button type="button" class="button-quiet" aria-label={`${remove.word} ${item.name}`} disabled={action.busy} onClick={() => void action.run(() => remove.run(item.id))}>
                  {remove.word}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {add !== undefined && add.choices.length > 0 && (
        <PickToAdd label={add.label} placeholder={add.placeholder} button={add.button} choices={add.choices} busy={action.busy} onAdd={(id) => action.run(() => add.run(id))} />
      )}
      <ActionStatus action={action} />
    </section>
  );
}
