/** Creating an organization with its system groups, and the first start's owner account. */
import fs from "node:fs";
import path from "node:path";
import { nowSeconds } from "../../clock.ts";
import { REALM_GROUP_SETTING_DEFAULTS, REALM_SCALAR_DEFAULTS, type RealmGroupSetting } from "../../permissions/realm-settings.ts";
import { ROLE, SYSTEM_GROUP, SYSTEM_GROUPS } from "../../model/roles.ts";
import { randomAlphanumeric } from "../../secrets.ts";
import type { RealmRow, UserRow } from "../../store/schema/database.ts";
import type { Db } from "../../store/schema/types.ts";
import { renderStreamDescription } from "../../present/streams.ts";
import { insertStream } from "../../store/channels/streams.ts";
import { actionCtx, doEnv, withTransaction, type DoEnv, type ServerDeps } from "../context.ts";
import { doAddDefaultStream, doJoinDefaultStreams } from "../channels/default-streams.ts";
import { newStreamGroupSettings } from "../channels/settings.ts";
import { doSendNotices } from "../messages/notification-bot.ts";
import { getDefaultRealm, insertRealm, updateRealmSettings } from "../../store/realm/realms.ts";
import { addSubgroups, insertGroup, updateGroup } from "../../store/groups/user-groups.ts";
import { doCreateUser, type CreatedUser } from "../users/create.ts";
import { doWelcomeNewUser } from "../onboarding/welcome-bot.ts";
import { apiEmail, emailDomain } from "../../model/emails.ts";

/**
 * Creates a realm, its eight system groups (nested as Zulip nests them) and its default settings.
 * Read receipts start on in a closed organization (invitation-only, the default, or limited to
 * some email domains) and off in an open one, as upstream's do_create_realm decides.
 */
export async function doCreateRealm(
  tx: Db,
  env: Pick<DoEnv, "clock">,
  input: { name: string; stringId: string; inviteRequired?: boolean; emailsRestrictedToDomains?: boolean },
): Promise<RealmRow> {
  const realm = await insertRealm(tx, { string_id: input.stringId, name: input.name, description: "", date_created: nowSeconds(env.clock), deactivated: 0, settings: "{}" });
  const ids = new Map<string, number>();
  for (const group of SYSTEM_GROUPS) {
    const row = await insertGroup(tx, { realm_id: realm.id, name: group.name, description: group.description, is_system_group: 1, deactivated: 0, date_created: null, creator_id: null });
    ids.set(group.name, row.id);
  }
  const nobody = ids.get(SYSTEM_GROUP.nobody) as number;
  for (const group of SYSTEM_GROUPS) {
    const id = ids.get(group.name) as number;
    if (group.parent) await addSubgroups(tx, ids.get(group.parent) as number, [id]);
    // System groups are managed by the server only; every permission on them is role:nobody.
    await updateGroup(tx, realm.id, id, {
      can_add_members_group_id: nobody,
      can_join_group_id: nobody,
      can_leave_group_id: nobody,
      can_manage_group_id: nobody,
      can_mention_group_id: ids.get(SYSTEM_GROUP.everyone) as number,
      can_remove_members_group_id: nobody,
    });
  }
  const inviteRequired = input.inviteRequired ?? REALM_SCALAR_DEFAULTS.invite_required;
  const emailsRestricted = input.emailsRestrictedToDomains ?? REALM_SCALAR_DEFAULTS.emails_restricted_to_domains;
  const settings: Record<string, number | boolean> = { enable_read_receipts: inviteRequired || emailsRestricted };
  if (inviteRequired !== REALM_SCALAR_DEFAULTS.invite_required) settings.invite_required = inviteRequired;
  if (emailsRestricted !== REALM_SCALAR_DEFAULTS.emails_restricted_to_domains) settings.emails_restricted_to_domains = emailsRestricted;
  for (const [key, groupName] of Object.entries(REALM_GROUP_SETTING_DEFAULTS)) {
    settings[key as RealmGroupSetting] = ids.get(groupName) as number;
  }
  await updateRealmSettings(tx, realm.id, settings);
  return { ...realm, settings: JSON.stringify(settings) };
}

/** Upstream's first channel: everyone joins it (Zulip's "general" in do_create_realm). */
const GENERAL_CHANNEL = { name: "general", description: "Everyone is added to this channel by default. Welcome! :octopus:" };
/** The welcome message posted there (upstream's Welcome Bot posts its first messages to "general"). */
const WELCOME = {
  topic: "greetings",
  content:
    "This is a message on channel #**general** with the topic `greetings`.\n\n" +
    "Everyone in the organization joins this channel. Say hello, and create channels for your other conversations!",
};

/**
 * The first channel, as upstream's realm creation makes it: public, default (so new users join
 * it), the owner subscribed, with a welcome message. Checks nothing.
 */
async function doCreateInitialChannel(tx: Db, env: DoEnv, owner: UserRow): Promise<void> {
  const stream = await insertStream(tx, {
    realm_id: env.realm.id,
    name: GENERAL_CHANNEL.name,
    description: GENERAL_CHANNEL.description,
    rendered_description: renderStreamDescription(GENERAL_CHANNEL.description, env.config.externalUrl),
    invite_only: 0,
    is_web_public: 0,
    history_public_to_subscribers: 1,
    message_retention_days: null,
    date_created: nowSeconds(env.clock),
    creator_id: owner.id,
    is_archived: 0,
    first_message_id: null,
    ...(await newStreamGroupSettings(tx, env.realm, owner, {})),
  });
  if (!stream) return;
  await doAddDefaultStream(tx, env, stream);
  await doJoinDefaultStreams(tx, env, owner);
  await doSendNotices(tx, env, [{ stream, topic: WELCOME.topic, content: WELCOME.content, reads: {} }]);
}

/**
 * On first start with an empty store: creates the organization, its owner and its first channel
 * (with a welcome message), prints the owner's credentials and writes them to
 * `$DATA_DIR/zuliprc`. Later starts change nothing.
 */
export async function ensureInitialRealm(deps: ServerDeps): Promise<void> {
  const { store, clock, config, log } = deps;
  const db = store.db;
  if (await getDefaultRealm(db)) return;
  const realm = await db.transaction().execute((tx) => doCreateRealm(tx, { clock }, { name: config.realmName, stringId: "" }));
  const password = randomAlphanumeric(16);
  const owner: CreatedUser = await db.transaction().execute((tx) =>
    doCreateUser(tx, { realm, clock }, { email: config.ownerEmail, fullName: "Owner", role: ROLE.owner, password }),
  );
  const ctx = actionCtx(deps, { realm, actor: null, client: "Internal" });
  await withTransaction(ctx, async (tx, emit) => {
    await doCreateInitialChannel(tx, doEnv(ctx, emit), owner);
    // Upstream's first owner goes through process_new_human_user too: the Welcome Bot greets them.
    await doWelcomeNewUser(tx, doEnv(ctx, emit), owner);
  });
  const email = apiEmail(owner, emailDomain(config.externalUrl));
  const zuliprc = `[api]\nemail=${email}\nkey=${owner.api_key}\nsite=${config.externalUrl}\n`;
  fs.mkdirSync(config.dataDir, { recursive: true });
  const file = path.join(config.dataDir, "zuliprc");
  fs.writeFileSync(file, zuliprc, { mode: 0o600 });
  log.info({ realm: realm.name, email, zuliprc: file }, "created organization and owner account");
  // Printed once, to the operator's terminal only (never through the logger).
  process.stdout.write(
    `\nParley: created organization "${realm.name}" and its owner.\n` +
      `  site:     ${config.externalUrl}\n  email:    ${email}\n  api key:  ${owner.api_key}\n  password: ${password}\n` +
      `  zuliprc:  ${file}\n\n` +
      `Open ${config.externalUrl} in a browser and log in with this email and password; invite\n` +
      `colleagues from Settings > Invite people.\n\n`,
  );
}
