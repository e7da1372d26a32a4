/** Observing a page's notifications and sounds in the browser suites (first-hour, notifications). */
import type { Page } from "playwright-core";

/**
 * An init script that watches what the page asks the browser's Notification API to show and how
 * often it starts a sound (the browser's own APIs, passed through): `shownNotifications` and
 * `chimes` on window. A string, so the test's compiler adds no helpers to it.
 */
export const WATCH_NOTIFICATIONS = `
  window.shownNotifications = [];
  window.chimes = [];
  const Real = window.Notification;
  window.Notification = function (title, options) {
    window.shownNotifications.push({ title, body: (options && options.body) || "" });
    return new Real(title, options);
  };
  Object.defineProperty(window.Notification, "permission", { get: () => Real.permission });
  window.Notification.requestPermission = (...args) => Real.requestPermission(...args);
  const start = OscillatorNode.prototype.start;
  OscillatorNode.prototype.start = function (...args) {
    window.chimes.push(Date.now());
    return start.apply(this, args);
  };
`;

/** A notification as the watch records it. */
export type ShownNotification = { title: string; body: string };

/** The notifications the page has shown so far (the watch must be installed). */
export function shownNotifications(page: Page): Promise<ShownNotification[]> {
  return page.evaluate(() => (window as unknown as { shownNotifications: ShownNotification[] }).shownNotifications);
}

/** How many sounds the page has started so far. */
export function chimeCount(page: Page): Promise<number> {
  return page.evaluate(() => (window as unknown as { chimes: number[] }).chimes.length);
}
