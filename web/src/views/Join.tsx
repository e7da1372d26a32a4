/**
 * The sign-up page of an invitation link (`/join/{token}/`): what the invitation is for, then a
 * name and a password (and an email address, for a reusable link). On a server that sends email a
 * reusable link asks only for the address, and mails it a link that opens this page to finish.
 * An unknown, used or expired link shows the server's error.
 */
import { useEffect, useState } from "preact/hooks";
import type { InviteSummary } from "../api/manage.ts";
import { askEmailConfirmation, readInvite, signUp } from "../state/join.ts";
import { errorText } from "../state/errors.ts";
import { Field, useAction } from "./forms/action.tsx";
import { CardForm } from "./forms/CardForm.tsx";

/** The channels the new account joins, when there are any. */
function InvitedChannels({ invite }: { invite: InviteSummary }) {
  return invite.streams.length > 0 ? <p class="settings-note">You will join {invite.streams.map((s) => `#${s}`).join(", ")}.</p> : null;
}

function JoinForm({ token, invite }: { token: string; invite: InviteSummary }) {
  const [fullName, setFullName] = useState("");
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const action = useAction();
  const submit = () => void action.run(() => signUp(token, { full_name: fullName.trim(), password, email: invite.email === null ? email.trim() : undefined }));
  return (
    <CardForm titleId="join-title" title={`Join ${invite.realm_name}`} action={action} submitLabel="Sign up" onSubmit={submit}>
      <InvitedChannels invite={invite} />
      {invite.email === null ? (
        <Field label="Email" type="email" name="email" autocomplete="email" required value={email} onValue={setEmail} />
      ) : (
        <p class="settings-note">Your account: {invite.email}</p>
      )}
      <Field label="Full name" name="full_name" autocomplete="name" required value={fullName} onValue={setFullName} />
      <Field label="Password" type="password" name="password" autocomplete="new-password" required value={password} onValue={setPassword} />
    </CardForm>
  );
}

/** A reusable link on a server that sends email: the address first; the emailed link finishes the sign-up. */
function ConfirmEmailForm({ token, invite }: { token: string; invite: InviteSummary }) {
  const [email, setEmail] = useState("");
  const [sentTo, setSentTo] = useState<string | null>(null);
  const action = useAction();
  const submit = () => void action.run(async () => setSentTo(await askEmailConfirmation(token, email.trim())));

  if (sentTo !== null) {
    return (
      <div class="login-card" role="status">
        <h1>Check your email</h1>
        <p>
          We sent a link to <strong>{sentTo}</strong>. Open it to choose your name and password and finish joining {invite.realm_name}.
        </p>
      </div>
    );
  }
  return (
    <CardForm titleId="join-title" title={`Join ${invite.realm_name}`} action={action} submitLabel="Continue" onSubmit={submit}>
      <InvitedChannels invite={invite} />
      <p class="settings-note">Enter your email address: we will send you a link to finish signing up.</p>
      <Field label="Email" type="email" name="email" autocomplete="email" required value={email} onValue={setEmail} />
    </CardForm>
  );
}

/** The sign-up page. */
export function Join({ token }: { token: string }) {
  const [invite, setInvite] = useState<InviteSummary | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    readInvite(token).then(setInvite, (err: unknown) => setError(errorText(err)));
  }, [token]);
  return (
    <main class="login-page">
      {invite !== null ? (
        invite.email_confirmation ? <ConfirmEmailForm token={token} invite={invite} /> : <JoinForm token={token} invite={invite} />
      ) : error !== null ? (
        <div class="login-card">
          <h1>This invitation cannot be used</h1>
          <p class="form-error" role="alert">
            {error}
          </p>
          <a href="/">Go to the login page</a>
        </div>
      ) : (
        <p class="splash" role="status">
          Loading the invitation…
        </p>
      )}
    </main>
  );
}
