/** Helpers shared by the edit, history, delete and report suites. */
import { expectSuccess, type ApiClient, type Credentials } from "../helpers/client.ts";

/** GET /messages/{id} as `user` (validated against the OpenAPI file like every response). */
export async function readMessage(api: ApiClient, user: Credentials, id: number, params: Record<string, unknown> = {}): Promise<any> {
  return expectSuccess(await api.get(user, `/messages/${id}`, params)).message;
}
