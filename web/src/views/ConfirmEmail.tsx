/** The page of an email change's link (`/accounts/confirm_new_email/<key>/`): opening it makes the change, once. */
import { useEffect, useState } from "preact/hooks";
import { confirmNewEmail } from "../state/accounts.ts";
import { errorText } from "../state/errors.ts";
import { CardMessage } from "./forms/CardForm.tsx";

/** Confirms the new address as the page opens, then says what changed (or why the link cannot be used). */
export function ConfirmEmail({ confirmationKey }: { confirmationKey: string }) {
  const [changed, setChanged] = useState<{ old_email: string; new_email: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    confirmNewEmail(confirmationKey).then(setChanged, (err: unknown) => setError(errorText(err)));
  }, [confirmationKey]);
  let card;
  if (error !== null) {
    card = (
      <CardMessage title="This link cannot be used" alert={error}>
        <a href="/">Go to Parley</a>
      </CardMessage>
    );
  } else if (changed === null) {
    card = (
      <p class="splash" role="status">
        Confirming your new email address…
      </p>
    );
  } else {
    card = (
      <CardMessage title="Your email address has been changed">
        <p>
          Your account's email address is now <strong>{changed.new_email}</strong> (it was {changed.old_email}). Log in with the new address from now on.
        </p>
        <a href="/">Go to Parley</a>
      </CardMessage>
    );
  }
  return <main class="login-page">{card}</main>;
}
