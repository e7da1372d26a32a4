/** A form on a card of the login page (logging in, signing up): its title, fields, outcome and submit button. */
import type { ComponentChildren } from "preact";
import { ActionStatus, type Action } from "./action.tsx";

/** The card's form: `titleId` names it (aria-labelledby); `onSubmit` runs on submit, the page staying put. */
export function CardForm(props: { titleId: string; title: string; action: Action; submitLabel: string; onSubmit: () => void; children: ComponentChildren }) {
  function submit(e: Event): void {
    e.preventDefault();
    props.onSubmit();
  }
  return (
    <form class="login-card" onSubmit={submit} aria-labelledby={props.titleId}>
      <h1 id={props.titleId}>{props.title}</h1>
      {props.children}
      <ActionStatus action={props.action} />
      <button type="submit" class="button-primary" disabled={props.action.busy}>
        {props.submitLabel}
      </button>
    </form>
  );
}
