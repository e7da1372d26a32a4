/** The login page: email and password, the server's error on failure. */
import { useState } from "preact/hooks";
import { login } from "../state/session.ts";
import { ActionStatus, Field, useAction } from "./settings/action.tsx";

/** The sign-in form. */
export function Login() {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const action = useAction();

  function submit(e: Event): void {
    e.preventDefault();
    void action.run(() => login(email.trim(), password));
  }

  return (
    <main class="login-page">
      <form class="login-card" onSubmit={submit} aria-labelledby="login-title">
        <h1 id="login-title">Log in to Parley</h1>
        <Field label="Email" type="email" name="username" autocomplete="username" required value={email} onValue={setEmail} />
        <Field label="Password" type="password" name="password" autocomplete="current-password" required value={password} onValue={setPassword} />
        <ActionStatus action={action} />
        <button type="submit" class="button-primary" disabled={action.busy}>
          Log in
        </button>
      </form>
    </main>
  );
}
