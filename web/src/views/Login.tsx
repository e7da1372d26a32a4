/** The login page: email and password, the server's error on failure, and the way to a password reset. */
import { useState } from "preact/hooks";
import { login } from "../state/session.ts";
import { Field, useAction } from "./forms/action.tsx";
import { CardForm } from "./forms/CardForm.tsx";

/** The sign-in form. */
export function Login() {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const action = useAction();
  return (
    <main class="login-page">
      <CardForm
        titleId="login-title"
        title="Log in to Parley"
        action={action}
        submitLabel="Log in"
        onSubmit={() => void action.run(() => login(email.trim(), password))}
        footer={<a href="/accounts/password/reset/">Forgot your password?</a>}
      >
        <Field label="Email" type="email" name="username" autocomplete="username" required value={email} onValue={setEmail} />
        <Field label="Password" type="password" name="password" autocomplete="current-password" required value={password} onValue={setPassword} />
      </CardForm>
    </main>
  );
}
