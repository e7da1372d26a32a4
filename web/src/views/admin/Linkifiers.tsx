/**
 * Linkifiers: everyone sees the patterns the server turns into links; administrators add them,
 * change and delete them, and move them up or down (the first that matches wins).
 */
import { useState } from "preact/hooks";
import type { Linkifier } from "../../api/organization.ts";
import { addLinkifier, changeLinkifier, deleteLinkifier, linkifiers, loadLinkifiers, moveLinkifier } from "../../state/linkifiers.ts";
import { isAdmin } from "../../state/settings.ts";
import { ActionStatus, Field, useAction, useLoad } from "../forms/action.tsx";

/** The pattern and URL template fields, to add a linkifier or change one. */
function LinkifierForm(props: { label: string; submit: string; initial?: Linkifier; save: (pattern: string, template: string) => Promise<void>; onDone?: () => void; onCancel?: () => void }) {
  const [pattern, setPattern] = useState(props.initial?.pattern ?? "");
  const [template, setTemplate] = useState(props.initial?.url_template ?? "");
  const action = useAction();
  async function submit(e: Event): Promise<void> {
    e.preventDefault();
    if (await action.run(() => props.save(pattern.trim(), template.trim()), props.initial === undefined ? "Linkifier added." : undefined)) {
      if (props.initial === undefined) {
        setPattern("");
        setTemplate("");
      }
      props.onDone?.();
    }
  }
  return (
    <form class="settings-form" aria-label={props.label} onSubmit={submit}>
      <Field label="Pattern" required value={pattern} onValue={setPattern} />
      <Field label="URL template" required value={template} onValue={setTemplate} />
      <ActionStatus action={action} />
      <div class="button-row">
        <button type="submit" class="button-primary" disabled={action.busy || pattern.trim() === "" || template.trim() === ""}>
          {props.submit}
        </button>
        {props.onCancel !== undefined && (
          <button type="button" class="button-quiet" onClick={props.onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}

function LinkifierRow({ linkifier, first, last }: { linkifier: Linkifier; first: boolean; last: boolean }) {
  const [editing, setEditing] = useState(false);
  const action = useAction();
  const admin = isAdmin.value;
  const name = linkifier.pattern;
  return (
    <li>
      <div class="admin-row">
        <code class="admin-name">{linkifier.pattern}</code>
        <span class="admin-meta">{linkifier.url_template}</span>
        {admin && (
          <>
            <button type="button" class="button-quiet" aria-label={`Move ${name} up`} disabled={action.busy || first} onClick={() => void action.run(() => moveLinkifier(linkifier.id, -1))}>
              ↑
            </button>
            <button type="button" class="button-quiet" aria-label={`Move ${name} down`} disabled={action.busy || last} onClick={() => void action.run(() => moveLinkifier(linkifier.id, 1))}>
              ↓
            </button>
            <button type="button" class="button-quiet" aria-label={`Edit ${name}`} aria-expanded={editing} onClick={() => setEditing(!editing)}>
              Edit
            </button>
            <button type="button" class="button-quiet" aria-label={`Delete ${name}`} disabled={action.busy} onClick={() => void action.run(() => deleteLinkifier(linkifier.id))}>
              Delete
            </button>
          </>
        )}
      </div>
      <ActionStatus action={action} />
      {editing && (
        <LinkifierForm
          label={`Edit ${name}`}
          submit="Save"
          initial={linkifier}
          save={(pattern, template) => changeLinkifier(linkifier.id, pattern, template)}
          onDone={() => setEditing(false)}
          onCancel={() => setEditing(false)}
        />
      )}
    </li>
  );
}

/** The screen. */
export function LinkifiersScreen() {
  const loading = useLoad(loadLinkifiers);
  const list = linkifiers.value;
  return (
    <>
      {isAdmin.value && (
        <section class="settings-form" aria-labelledby="add-linkifier-title">
          <h3 id="add-linkifier-title">Add a linkifier</h3>
          <p class="settings-note">
            A pattern is a regular expression with named groups, such as <code>#(?P&lt;id&gt;[0-9]+)</code>; the URL template names them in braces, such as{" "}
            <code>https://tracker.example.com/issues/{"{id}"}</code>.
          </p>
          <LinkifierForm label="Add a linkifier" submit="Add linkifier" save={addLinkifier} />
        </section>
      )}
      <section class="settings-form" aria-labelledby="linkifiers-title">
        <h3 id="linkifiers-title">Linkifiers</h3>
        <ActionStatus action={loading} />
        {list.length === 0 ? (
          <p class="settings-note">No linkifiers yet.</p>
        ) : (
          <ul class="admin-list" aria-label="Linkifiers">
            {list.map((l, i) => (
              <LinkifierRow key={l.id} linkifier={l} first={i === 0} last={i === list.length - 1} />
            ))}
          </ul>
        )}
      </section>
    </>
  );
}
