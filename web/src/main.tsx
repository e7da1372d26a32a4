/** The web app's entry point: theme, render, boot. */
import { effect } from "@preact/signals";
import { render } from "preact";
import { boot } from "./state/session.ts";
import { settings } from "./state/store.ts";
import { App } from "./views/App.tsx";
import "./styles.css";

/** color_scheme: 1 follows the system, 2 dark, 3 light. */
effect(() => {
  const scheme = settings.value.color_scheme;
  document.documentElement.dataset.theme = scheme === 2 ? "dark" : scheme === 3 ? "light" : "auto";
});

const root = document.getElementById("app");
if (root) render(<App />, root);
void boot();
