/** Times in a `datetime-local` field's form (the browser's time zone), both ways. */

/** "2025-03-01T09:30" for UNIX seconds, in local time. */
export function toLocalInput(seconds: number): string {
  const d = new Date(seconds * 1000);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** UNIX seconds of a field's value (NaN when empty or invalid). */
export function fromLocalInput(value: string): number {
  return value === "" ? Number.NaN : Math.floor(new Date(value).getTime() / 1000);
}
