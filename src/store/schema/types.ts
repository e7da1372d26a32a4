/** The handles store functions take, apart from the code that opens the store (db.ts). */
import type { Kysely, Transaction } from "kysely";
import type { Database } from "./database.ts";

/** The database or a transaction on it: every store function takes either. */
export type Db = Kysely<Database> | Transaction<Database>;

/** Which database the store runs on. */
export type Engine = "sqlite" | "postgres";

/** The largest id a row can have (ids are 32-bit on PostgreSQL, which refuses larger bounds for them). */
export const MAX_STORED_ID = 2_147_483_647;
