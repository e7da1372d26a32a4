/** The organization data export calls (administrators only): start one, list them, delete one's file. */
import { call } from "./client.ts";

/** A data export as GET /export/realm and the realm_export event give it. */
export type RealmExport = {
  id: number;
  acting_user_id: number;
  export_time: number;
  deleted_timestamp: number | null;
  failed_timestamp: number | null;
  export_url: string | null;
  pending: boolean;
  /** 1: public data; 2: also the private data of members who consented. */
  export_type: number;
};

export const exportsApi = {
  list: () => call<{ exports: RealmExport[] }>("GET", "/export/realm"),
  start: (exportType: number) => call<{ id: number }>("POST", "/export/realm", { export_type: exportType }),
  remove: (id: number) => call<object>("DELETE", `/export/realm/${id}`),
};
