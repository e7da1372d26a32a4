/** The register snapshot's `push_devices` (FL 406): listed even when push is not configured, as upstream. */
import { presentPushDevices } from "../present/push.ts";
import { pushDevicesOf } from "../store/push/push.ts";
import type { StateProvider } from "./provider.ts";

export const pushState: StateProvider = {
  async fetch(ctx, _opts, want) {
    if (!want("push_device")) return {};
    return { push_devices: ctx.actor ? presentPushDevices(await pushDevicesOf(ctx.db, ctx.realm.id, ctx.actor.id)) : {} };
  },
};
