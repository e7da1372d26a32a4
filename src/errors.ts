/** Every error code the API can return, and the one error class that carries them. */

/** SPEC.md's error codes, plus the parameter codes of Zulip's request layer. */
export const ERROR_CODES = [
  "BAD_REQUEST",
  "REQUEST_VARIABLE_MISSING",
  "REQUEST_CONFUSING_VAR",
  "STREAM_DOES_NOT_EXIST",
  "STREAM_WILDCARD_MENTION_NOT_ALLOWED",
  "TOPIC_WILDCARD_MENTION_NOT_ALLOWED",
  "UNAUTHORIZED",
  "BAD_EVENT_QUEUE_ID",
  "PUSH_SERVICE_NOT_CONFIGURED",
  "NO_ACTIVE_PUSH_DEVICE",
  "ADMIN_ACTION_REQUIRED",
  "FAILED_TO_CONNECT_BOUNCER",
  "INTERNAL_SERVER_ERROR_ON_BOUNCER",
  "INVALID_PUSH_DEVICE_TOKEN",
  "INVALID_REMOTE_PUSH_DEVICE_TOKEN",
  "RATE_LIMIT_HIT",
  "NOT_FOUND",
  "UNAUTHORIZED_PRINCIPAL",
  "CANNOT_DEACTIVATE_LAST_USER",
  "INTERNAL_SERVER_ERROR",
  "AUTHENTICATION_FAILED",
  "USER_DEACTIVATED",
  "REALM_DEACTIVATED",
  "REACTION_ALREADY_EXISTS",
  "REACTION_DOES_NOT_EXIST",
  "MOVE_MESSAGES_TIME_LIMIT_EXCEEDED",
  "CANNOT_DEACTIVATE_GROUP_IN_USE",
  "BAD_NARROW",
  "INCOMPATIBLE_PARAMETERS",
  "CHANNEL_ALREADY_EXISTS",
  "INVITATION_FAILED",
  "INVALID_INVITE",
  "CSRF_FAILED",
] as const;

type ErrorCode = (typeof ERROR_CODES)[number];

/** An error shown to the client as Zulip's envelope: `{result: "error", msg, code, ...data}`. */
export class JsonableError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly data: Record<string, unknown>;

  constructor(msg: string, opts: { code?: ErrorCode; status?: number; data?: Record<string, unknown> } = {}) {
    super(msg);
    this.code = opts.code ?? "BAD_REQUEST";
    this.status = opts.status ?? 400;
    this.data = opts.data ?? {};
  }
}

/** A required parameter was not sent. */
export class MissingArgumentError extends JsonableError {
  constructor(name: string) {
    super(`Missing '${name}' argument`, { code: "REQUEST_VARIABLE_MISSING", data: { var_name: name } });
  }
}

/** Both a parameter and its alias were sent. */
export class ConfusingVarError extends JsonableError {
  constructor(a: string, b: string) {
    super(`Can't decide between '${a}' and '${b}' arguments`, { code: "REQUEST_CONFUSING_VAR" });
  }
}

/** No valid credentials (or a deactivated account). */
export class UnauthorizedError extends JsonableError {
  constructor(msg = "Not logged in: API authentication or user session required") {
    super(msg, { code: "UNAUTHORIZED", status: 401 });
  }
}

/** A channel message to a channel that does not exist; names the channel given. */
export class StreamDoesNotExistError extends JsonableError {
  constructor(stream: string) {
    super(`Channel '${stream}' does not exist`, { code: "STREAM_DOES_NOT_EXIST", data: { stream } });
  }
}

/** An event queue that does not exist (never made, deleted or garbage-collected). */
export class BadEventQueueIdError extends JsonableError {
  constructor(queueId: string) {
    super(`Bad event queue ID: ${queueId}`, { code: "BAD_EVENT_QUEUE_ID", data: { queue_id: queueId } });
  }
}

/** Too many attempts; tells the client when to retry. */
export class RateLimitedError extends JsonableError {
  constructor(retryAfterSeconds: number) {
    super("API usage exceeded rate limit", {
      code: "RATE_LIMIT_HIT",
      status: 429,
      data: { "retry-after": retryAfterSeconds },
    });
  }
}

/** The caller's role or group permissions do not allow the action. */
export class PermissionDeniedError extends JsonableError {
  constructor(msg = "Insufficient permission") {
    super(msg, { code: "BAD_REQUEST" });
  }
}

/** A password login with a wrong password or an unknown user: one error, so it reveals neither. */
export class AuthenticationFailedError extends JsonableError {
  constructor() {
    super("Your username or password is incorrect", { code: "AUTHENTICATION_FAILED", status: 401 });
  }
}

/** A password login to a deactivated account. */
export class UserDeactivatedError extends JsonableError {
  constructor() {
    super("Account is deactivated", { code: "USER_DEACTIVATED", status: 401 });
  }
}

/** A password login to an account of a deactivated organization. */
export class RealmDeactivatedError extends JsonableError {
  constructor() {
    super("This organization has been deactivated", { code: "REALM_DEACTIVATED", status: 401 });
  }
}

/** The action needs an organization administrator (Zulip's OrganizationAdministratorRequiredError). */
export class AdministratorRequiredError extends JsonableError {
  constructor() {
    super("Must be an organization administrator", { code: "UNAUTHORIZED_PRINCIPAL" });
  }
}

/** The action needs an organization owner (Zulip's OrganizationOwnerRequiredError). */
export class OwnerRequiredError extends JsonableError {
  constructor() {
    super("Must be an organization owner", { code: "UNAUTHORIZED_PRINCIPAL" });
  }
}

/** Deactivating oneself would leave the organization without an owner, or without any user. */
export class CannotDeactivateLastUserError extends JsonableError {
  constructor(isLastOwner: boolean) {
    const entity = isLastOwner ? "organization owner" : "user";
    super(`Cannot deactivate the only ${entity}`, { code: "CANNOT_DEACTIVATE_LAST_USER", data: { is_last_owner: isLastOwner, entity } });
  }
}

/** The user already reacted to the message with this emoji (FL 193; earlier BAD_REQUEST). */
export class ReactionExistsError extends JsonableError {
  constructor() {
    super("Reaction already exists.", { code: "REACTION_ALREADY_EXISTS" });
  }
}

/** The user has no reaction to the message with this emoji (FL 193; earlier BAD_REQUEST). */
export class ReactionDoesNotExistError extends JsonableError {
  constructor() {
    super("Reaction doesn't exist.", { code: "REACTION_DOES_NOT_EXIST" });
  }
}

/** A channel named by id does not exist (Zulip's StreamWithIDDoesNotExistError). */
export class StreamWithIdDoesNotExistError extends JsonableError {
  constructor(streamId: number) {
    super(`Channel with ID '${streamId}' does not exist`, { code: "STREAM_DOES_NOT_EXIST", data: { stream_id: streamId } });
  }
}

/**
 * A change_all move by a user who may move only the recent part of the topic (FL 172); names the
 * oldest message they may move and the counts.
 */
export class MoveMessagesTimeLimitError extends JsonableError {
  constructor(firstAllowedId: number | null, total: number, allowed: number) {
    super(`You only have permission to move the ${allowed}/${total} most recent messages in this topic.`, {
      code: "MOVE_MESSAGES_TIME_LIMIT_EXCEEDED",
      data: { first_message_id_allowed_to_move: firstAllowedId, total_messages_in_topic: total, total_messages_allowed_to_move: allowed },
    });
  }
}

/**
 * A user group still used as a subgroup of an active group or to hold a permission setting
 * (FL 298; earlier BAD_REQUEST); `objections` lists where.
 */
export class CannotDeactivateGroupInUseError extends JsonableError {
  constructor(objections: Array<Record<string, unknown>>) {
    super("Cannot deactivate user group in use.", { code: "CANNOT_DEACTIVATE_GROUP_IN_USE", data: { objections } });
  }
}

/** Zulip's InvalidOperatorCombinationError. */
export class InvalidOperatorCombinationError extends JsonableError {
  constructor(desc: string) {
    super(`Invalid narrow operator combination: ${desc}`, { code: "BAD_NARROW", data: { desc } });
  }
}

/** Zulip's refusal to a caller who can see a channel but not administer it. */
export class CannotAdministerChannelError extends JsonableError {
  constructor() {
    super("You do not have permission to administer this channel.");
  }
}

/** Zulip's one error for a message that is missing or that the caller may not see. */
export class InvalidMessageError extends JsonableError {
  constructor() {
    super("Invalid message(s)");
  }
}

/** Zulip's refusal of a file the user may not read. */
export class FileForbiddenError extends JsonableError {
  constructor() {
    super("You are not authorized to view this file.", { status: 403 });
  }
}

/** Zulip's answer for an upload that does not exist. */
export class FileNotFoundError extends JsonableError {
  constructor() {
    super("File not found.", { status: 404 });
  }
}

/** Zulip's error for a snippet that is missing or someone else's (HTTP 404, code BAD_REQUEST). */
export class SavedSnippetNotFoundError extends JsonableError {
  constructor() {
    super("Saved snippet does not exist.", { status: 404 });
  }
}

/** "Invalid narrow operator: {desc}", Zulip's BadNarrowOperatorError. */
export class BadNarrowError extends JsonableError {
  constructor(desc: string) {
    super(`Invalid narrow operator: ${desc}`, { code: "BAD_NARROW", data: { desc } });
  }
}

/** Parameters that cannot be sent together (Zulip's IncompatibleParametersError). */
export class IncompatibleParametersError extends JsonableError {
  constructor(parameters: readonly string[]) {
    const list = parameters.join(", ");
    super(`Unsupported parameter combination: ${list}`, { code: "INCOMPATIBLE_PARAMETERS", data: { parameters: list } });
  }
}

/**
 * A programming error, never shown to clients as such: an action opened a write transaction
 * while its request already had one open (actions/context.ts TransactionGuard). The fix is to
 * pass the outer transaction down to the `do*` primitive.
 */
/**
 * A PostgreSQL group-commit batch was rolled back because another of its transactions failed
 * (store/commit/pg-group-commit.ts): nothing of this one was kept; withTransaction runs it again, alone.
 */
export class BatchRolledBackError extends Error {
  constructor() {
    super("the group-commit batch was rolled back for another transaction's error");
    this.name = "BatchRolledBackError";
  }
}

export class NestedTransactionError extends Error {
  constructor() {
    super("a write transaction was opened inside another: pass the outer transaction down");
    this.name = "NestedTransactionError";
  }
}

/** "Draft does not exist" (404): missing, or another user's (Zulip's ResourceNotFoundError). */
export class DraftDoesNotExistError extends JsonableError {
  constructor() {
    super("Draft does not exist", { status: 404 });
  }
}

/** "Scheduled message does not exist" (404): missing, or another user's. */
export class ScheduledMessageDoesNotExistError extends JsonableError {
  constructor() {
    super("Scheduled message does not exist", { status: 404 });
  }
}

/** A push call while the server has no push relay configured (Zulip's PushNotificationsNotConfiguredError). */
export class PushNotConfiguredError extends JsonableError {
  constructor() {
    super("Server is not configured to use push notification service.", { code: "PUSH_SERVICE_NOT_CONFIGURED" });
  }
}

/** A push call with no active registered device of the caller's (Zulip's NoActivePushDeviceError). */
export class NoActivePushDeviceError extends JsonableError {
  constructor() {
    super("No active registered push device", { code: "NO_ACTIVE_PUSH_DEVICE" });
  }
}

/** The legacy test notification named a token the caller has not registered (Zulip's InvalidPushDeviceTokenError). */
export class InvalidPushDeviceTokenError extends JsonableError {
  constructor() {
    super("Device not recognized", { code: "INVALID_PUSH_DEVICE_TOKEN" });
  }
}

/** The relay does not know the token a legacy test notification was for (Zulip's InvalidRemotePushDeviceTokenError). */
export class InvalidRemotePushDeviceTokenError extends JsonableError {
  constructor() {
    super("Device not recognized by the push bouncer", { code: "INVALID_REMOTE_PUSH_DEVICE_TOKEN" });
  }
}

/** Zulip's @human_users_only. */
export class HumanUsersOnlyError extends JsonableError {
  constructor() {
    super("This endpoint does not accept bot requests.");
  }
}

/** A reminder id that is not one of the caller's reminders (Zulip's access_reminder). */
export class ReminderDoesNotExistError extends JsonableError {
  constructor() {
    super("Reminder does not exist", { status: 404 });
  }
}

/** POST /channels/create with a taken name (Zulip's ChannelExistsError, FL 417): 409. */
export class ChannelAlreadyExistsError extends JsonableError {
  constructor(name: string) {
    super(`Channel '${name}' already exists`, { code: "CHANNEL_ALREADY_EXISTS", status: 409 });
  }
}

/** One address of POST /invites that got no invitation: the address, why, and whether it names a deactivated account. */
export type InvitationSkip = [email: string, reason: string, deactivated: boolean];

/** POST /invites refused some or all addresses (Zulip's InvitationError); `sent_invitations` says whether the others were invited. */
export class InvitationError extends JsonableError {
  constructor(msg: string, errors: InvitationSkip[], opts: { sentInvitations: boolean; dailyLimitReached?: boolean }) {
    super(msg, {
      code: "INVITATION_FAILED",
      data: { errors, sent_invitations: opts.sentInvitations, license_limit_reached: false, daily_limit_reached: opts.dailyLimitReached ?? false },
    });
  }
}

/** An invitation link that names no open invitation: unknown, expired, revoked or already used. */
export class InvalidInviteError extends JsonableError {
  constructor(expired: boolean) {
    super(expired ? "The invitation link has expired or been deactivated." : "We couldn't find that invitation link.", { code: "INVALID_INVITE" });
  }
}

/** A reusable invitation link that, with SMTP_URL set, signs up only an address confirmed by email (POST /invites/accept/{token}/confirm_email first). */
export class EmailConfirmationRequiredError extends JsonableError {
  constructor() {
    super("This invitation link needs your email address confirmed first: ask for a confirmation email, and sign up through its link.");
  }
}

/** A /json request that may change something without the CSRF cookie and matching X-CSRFToken header (Zulip's CsrfFailureError, with Django's reason). */
export class CsrfFailedError extends JsonableError {
  constructor(reason: string) {
    super(`CSRF error: ${reason}`, { code: "CSRF_FAILED", status: 403, data: { reason } });
  }
}

/**
 * An outgoing request (an outgoing webhook) refused because its destination is not a public
 * address, nor one OUTGOING_HTTP_ALLOW allows, or its proxy refused it (src/outgoing-http.ts).
 * Never shown to clients: the worker tells the bot's owner in Zulip's words.
 */
export class DisallowedAddressError extends Error {
  constructor(host: string) {
    super(`outgoing request refused: ${host} is a private or disallowed address`);
    this.name = "DisallowedAddressError";
  }
}

/**
 * An import refused: the export is incomplete, malformed or inconsistent (a message naming a user
 * it does not hold), or the store is not empty. The message says which; nothing was written.
 */
export class ImportRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ImportRefusedError";
  }
}
