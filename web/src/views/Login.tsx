/** The login page: email and password, the server's error on failure. */
import { useState } from "preact/hooks";
import { ApiError } from "../api/client.ts";
import { login } from "../state/session.ts";

/** The sign-in form. */
export function Login() {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: Event): Promise<void> {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await login(email.trim(), password);
    } catch (err) {
      setError(err instanceof ApiError ? err.message : "Could not sign in. Try again.");
      setBusy(false);
    }
  }

  return (
    <main class="login-page">
      <form class="login-card" onSubmit={submit} aria-labelledby="login-title">
        <h1 id="login-title">Log in to Parley</h1>
        <label>
          Email
          <input type="email" name="username" autocomplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        </label>
        <label>
          Password
          <input type="password" name="password" autocomplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
        </label>
        {error !== null && (
          <p class="form-error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" class="button-primary" disabled={busy}>
          Log in
        </button>
      </form>
    </main>
  );
}
