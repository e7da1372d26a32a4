/**
 * The password reset pages: "Forgot your password?" (`/accounts/password/reset/`) takes an email
 * address and says to check the mail, whatever the address (or, on a server that sends no email,
 * whom to ask); the emailed link (`/accounts/password/reset/<uidb64>/<token>/`) takes the new
 * password twice, then sends the user to the login page.
 */
import { useEffect, useState } from "preact/hooks";
import { askPasswordReset, readResetLink, serverSendsEmail, setNewPassword } from "../state/accounts.ts";
import { errorText } from "../state/errors.ts";
import { Field, useAction } from "./forms/action.tsx";
import { CardForm, CardMessage } from "./forms/CardForm.tsx";

const toLogin = <a href="/">Back to the login page</a>;

/** Where the page stands while it loads what it shows first. */
function Loading({ what }: { what: string }) {
  return (
    <p class="splash" role="status">
      {what}
    </p>
  );
}

function RequestForm() {
  const [email, setEmail] = useState("");
  const [sentTo, setSentTo] = useState<string | null>(null);
  const action = useAction();
  if (sentTo !== null) {
    return (
      <CardMessage title="Check your email">
        <p>
          If <strong>{sentTo}</strong> has an account here, we sent it a link to choose a new password. The link works once, for a short while.
        </p>
        {toLogin}
      </CardMessage>
    );
  }
  const submit = () => void action.run(async () => {
    await askPasswordReset(email.trim());
    setSentTo(email.trim());
  });
  return (
    <CardForm titleId="reset-title" title="Forgot your password?" action={action} submitLabel="Send me a reset link" onSubmit={submit} footer={toLogin}>
      <p class="settings-note">Enter your account's email address: we will send you a link to choose a new password.</p>
      <Field label="Email" type="email" name="email" autocomplete="email" required value={email} onValue={setEmail} />
    </CardForm>
  );
}

/** `/accounts/password/reset/`: the address to mail a link to. */
export function ResetRequest() {
  const [sends, setSends] = useState<boolean | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    serverSendsEmail().then(setSends, (err: unknown) => setError(errorText(err)));
  }, []);
  let card;
  if (error !== null) card = <CardMessage title="Forgot your password?" alert={error}>{toLogin}</CardMessage>;
  else if (sends === null) card = <Loading what="Loading…" />;
  else if (!sends) {
    card = (
      <CardMessage title="Forgot your password?">
        <p>This server does not send email, so it cannot mail you a reset link. Ask an administrator of your organization to set a new password for you.</p>
        {toLogin}
      </CardMessage>
    );
  } else card = <RequestForm />;
  return <main class="login-page">{card}</main>;
}

function NewPasswordForm({ uid, token, email }: { uid: string; token: string; email: string }) {
  const [password, setPassword] = useState("");
  const [again, setAgain] = useState("");
  const [done, setDone] = useState(false);
  const action = useAction();
  if (done) {
    return (
      <CardMessage title="Your password has been changed">
        <p>Log in with your new password. Your other browsers were logged out.</p>
        <a href="/">Log in</a>
      </CardMessage>
    );
  }
  const submit = () => void action.run(async () => {
    await setNewPassword(uid, token, password, again);
    setDone(true);
  });
  return (
    <CardForm titleId="new-password-title" title="Choose a new password" action={action} submitLabel="Change my password" onSubmit={submit}>
      <p class="settings-note">For your account {email}.</p>
      <Field label="New password" type="password" name="new_password" autocomplete="new-password" required value={password} onValue={setPassword} />
      <Field label="Confirm new password" type="password" name="new_password_again" autocomplete="new-password" required value={again} onValue={setAgain} />
    </CardForm>
  );
}

/** `/accounts/password/reset/<uidb64>/<token>/`: the new password, if the link still works. */
export function ResetPassword({ uid, token }: { uid: string; token: string }) {
  const [email, setEmail] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    readResetLink(uid, token).then(setEmail, (err: unknown) => setError(errorText(err)));
  }, [uid, token]);
  let card;
  if (error !== null) {
    card = (
      <CardMessage title="This link cannot be used" alert={error}>
        <a href="/accounts/password/reset/">Ask for a new link</a>
      </CardMessage>
    );
  } else if (email === null) card = <Loading what="Checking the link…" />;
  else card = <NewPasswordForm uid={uid} token={token} email={email} />;
  return <main class="login-page">{card}</main>;
}
