/** A form on a card of the login page (logging in, signing up, resetting a password): its title, fields, outcome and submit button; and a card with a message. */
import type { ComponentChildren } from "preact";
import { ActionStatus, type Action } from "./action.tsx";

/** The card's form: `titleId` names it (aria-labelledby); `onSubmit` runs on submit, the page staying put; `footer` goes under the button (links elsewhere). */
export function CardForm(props: { titleId: string; title: string; action: Action; submitLabel: string; onSubmit: () => void; children: ComponentChildren; footer?: ComponentChildren }) {
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
      {props.footer}
    </form>
  );
}

/** A card that says something instead of asking (a result, or why a link cannot be used): `alert` shows its text as an error. */
export function CardMessage(props: { title: string; alert?: string; children?: ComponentChildren }) {
  return (
    <div class="login-card" role={props.alert === undefined ? "status" : undefined}>
      <h1>{props.title}</h1>
      {props.alert !== undefined && (
        <p class="form-error" role="alert">
          {props.alert}
        </p>
      )}
      {props.children}
    </div>
  );
}
