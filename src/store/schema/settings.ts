/** Table types of the settings endpoints (listed in schema.ts's Database). */

/** An organization's defaults for new users' personal settings (Zulip's RealmUserDefault). */
export interface RealmUserDefaultsTable {
  realm_id: number;
  /** JSON object of the settings whose default differs from Zulip's (model/user-settings.ts). */
  settings: string;
}
