/**
 * The calls of the settings, administration and sign-up screens, typed. Each is an existing
 * endpoint of the API (under /json, with the session), so every permission is the server's.
 */
import { call, type Params } from "./client.ts";
import type { GroupSettingValue } from "./types.ts";

/** A channel as GET /streams lists it (the fields the administration screen reads). */
export type Stream = {
  stream_id: number;
  name: string;
  description: string;
  invite_only: boolean;
  is_archived: boolean;
  subscriber_count?: number;
  can_send_message_group: GroupSettingValue;
  can_add_subscribers_group: GroupSettingValue;
  can_remove_subscribers_group: GroupSettingValue;
};

/** A user as GET /users lists them. */
export type Member = { user_id: number; email: string; full_name: string; role: number; is_active: boolean; is_bot: boolean };

/** An open invitation as GET /invites lists it. */
export type Invite = {
  id: number;
  invited_by_user_id: number;
  invited: number;
  expiry_date: number | null;
  invited_as: number;
  is_multiuse: boolean;
  email?: string;
  link_url?: string;
};

/**
 * GET /invites/accept/{token}: what the sign-up page shows. `email_confirmation`: the link signs
 * up only an address confirmed by email (the server mails a link that completes the sign-up).
 */
export type InviteSummary = {
  realm_name: string;
  email: string | null;
  is_multiuse: boolean;
  invited_as: number;
  expiry_date: number | null;
  streams: string[];
  email_confirmation: boolean;
};

const path = encodeURIComponent;

/** The calls, by screen. */
export const manageApi = {
  // Sign-up by invitation (unauthenticated).
  invite: (token: string) => call<InviteSummary>("GET", `/invites/accept/${path(token)}`),
  acceptInvite: (token: string, params: { full_name: string; password: string; email?: string }) =>
    call<{ user_id: number; email: string }>("POST", `/invites/accept/${path(token)}/register`, params),
  confirmSignupEmail: (token: string, email: string) => call<{ email: string }>("POST", `/invites/accept/${path(token)}/confirm_email`, { email }),

  // Personal settings.
  updateSettings: (params: Params) => call<object>("PATCH", "/settings", params),

  // Channels.
  streams: () => call<{ streams: Stream[] }>("GET", "/streams", { include_all: true }),
  createStream: (name: string, description: string, inviteOnly: boolean) =>
    call<object>("POST", "/users/me/subscriptions", { subscriptions: [{ name, description }], invite_only: inviteOnly }),
  updateStream: (streamId: number, params: Params) => call<object>("PATCH", `/streams/${streamId}`, params),
  archiveStream: (streamId: number) => call<object>("DELETE", `/streams/${streamId}`),
  streamMembers: (streamId: number) => call<{ subscribers: number[] }>("GET", `/streams/${streamId}/members`),
  subscribe: (streamName: string, userIds: number[]) =>
    call<object>("POST", "/users/me/subscriptions", { subscriptions: [{ name: streamName }], principals: userIds }),
  unsubscribe: (streamName: string, userIds: number[]) =>
    call<object>("DELETE", "/users/me/subscriptions", { subscriptions: [streamName], principals: userIds }),
  join: (streamName: string) => call<object>("POST", "/users/me/subscriptions", { subscriptions: [{ name: streamName }] }),
  leave: (streamName: string) => call<object>("DELETE", "/users/me/subscriptions", { subscriptions: [streamName] }),
  subscriptionProperty: (streamId: number, property: string, value: boolean | string) =>
    call<object>("POST", "/users/me/subscriptions/properties", { subscription_data: [{ stream_id: streamId, property, value }] }),

  // Users and invitations.
  members: () => call<{ members: Member[] }>("GET", "/users"),
  updateUser: (userId: number, params: Params) => call<object>("PATCH", `/users/${userId}`, params),
  deactivateUser: (userId: number) => call<object>("DELETE", `/users/${userId}`),
  reactivateUser: (userId: number) => call<object>("POST", `/users/${userId}/reactivate`),
  invites: () => call<{ invites: Invite[] }>("GET", "/invites"),
  inviteByEmail: (emails: string, inviteAs: number, streamIds: number[]) =>
    call<object>("POST", "/invites", { invitee_emails: emails, invite_as: inviteAs, stream_ids: streamIds }),
  createInviteLink: (inviteAs: number, streamIds: number[]) =>
    call<{ invite_link: string }>("POST", "/invites/multiuse", { invite_as: inviteAs, stream_ids: streamIds }),
  revokeInvite: (invite: Invite) => call<object>("DELETE", invite.is_multiuse ? `/invites/multiuse/${invite.id}` : `/invites/${invite.id}`),

  // The organization.
  updateRealm: (params: Params) => call<object>("PATCH", "/realm", params),
  testWelcomeMessage: (text: string) => call<{ message_id: number }>("POST", "/realm/test_welcome_bot_custom_message", { welcome_message_custom_text: text }),
};
