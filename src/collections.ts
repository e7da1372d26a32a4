/** Small helpers over the built-in collections that several layers need. */

/** Appends `value` to the list under `key`, starting the list when the key is new. */
export function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
