/**
 * Changing one's email address (on a server that sends email): the new address is mailed a
 * confirmation link, and the address changes when that link is opened (its page: ConfirmEmail).
 */
import { useState } from "preact/hooks";
import { emailSending } from "../../state/admin.ts";
import { askEmailChange } from "../../state/accounts.ts";
import { ActionStatus, Field, useAction } from "../forms/action.tsx";

/** The new address and its button; nothing on a server that cannot mail the confirmation. */
export function EmailForm() {
  const [email, setEmail] = useState("");
  const action = useAction();
  if (!emailSending.value) return null;
  return (
    <form
      class="settings-form"
      aria-labelledby="email-title"
      onSubmit={(e) => {
        e.preventDefault();
        const address = email.trim();
        void action.run(() => askEmailChange(address), `We sent a confirmation link to ${address}: your address changes once you open it.`);
      }}
    >
      <h3 id="email-title">Email address</h3>
      <Field label="New email address" type="email" autocomplete="email" required value={email} onValue={setEmail} />
      <ActionStatus action={action} />
      <button type="submit" class="button-primary" disabled={action.busy || email.trim() === ""}>
        Change email address
      </button>
    </form>
  );
}
