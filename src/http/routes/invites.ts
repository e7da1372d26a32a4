/**
 * Invitations: sending (email invitations, reusable links), listing, revoking and resending them,
 * and the unauthenticated calls of the web app's sign-up page that read and accept one (and, for a
 * reusable link on a server that sends email, mail the visitor's address a sign-up confirmation).
 */
import { z } from "zod";
import { isRole } from "../../model/roles.ts";
import { MAX_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH } from "../../permissions/realm-settings.ts";
import { defineEndpoint } from "../endpoint.ts";
import { bool, dbInt, int, intList, json, pathInt, str } from "../params.ts";
import { createMultiuseInvite, inviteUsers } from "../../actions/invites/create.ts";
import { getInvites, resendInvite, revokeInvite, revokeMultiuseInvite } from "../../actions/invites/manage.ts";
import { getInviteForSignup, registerWithInvite } from "../../actions/invites/accept.ts";
import { sendSignupConfirmation } from "../../actions/invites/signup-confirmation.ts";

/** Zulip's INVITATION_LINK_VALIDITY_DAYS (10) in minutes: the expiry when none is given. */
const DEFAULT_VALIDITY_MINUTES = 10 * 24 * 60;

/** What both kinds of invitation take. */
const inviteOptions = {
  invite_expires_in_minutes: json(dbInt().nullable()).default(DEFAULT_VALIDITY_MINUTES),
  invite_as: int().refine(isRole, { message: "Invalid {var_name}" }).default(400),
  include_realm_default_subscriptions: bool().default(false),
  welcome_message_custom_text: str().max(MAX_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH).optional(),
};

/** This file's endpoints, which http/app.ts loads. */
export const endpoints = [
  defineEndpoint({
    method: "GET",
    path: "/invites",
    auth: "user",
    params: z.object({}),
    handler: (_p, ctx) => getInvites(ctx),
  }),
  defineEndpoint({
    method: "POST",
    path: "/invites",
    auth: "user",
    params: z.object({ invitee_emails: str(), stream_ids: intList(), notify_referrer_on_join: bool().default(true), ...inviteOptions }),
    handler: (p, ctx) => inviteUsers(ctx, p),
  }),
  defineEndpoint({
    method: "POST",
    path: "/invites/multiuse",
    auth: "user",
    params: z.object({ stream_ids: intList().default([]), ...inviteOptions }),
    handler: (p, ctx) => createMultiuseInvite(ctx, p),
  }),
  defineEndpoint({
    method: "DELETE",
    path: "/invites/:invite_id",
    auth: "user",
    params: z.object({ invite_id: pathInt() }),
    handler: (p, ctx) => revokeInvite(ctx, p.invite_id),
  }),
  defineEndpoint({
    method: "DELETE",
    path: "/invites/multiuse/:invite_id",
    auth: "user",
    params: z.object({ invite_id: pathInt() }),
    handler: (p, ctx) => revokeMultiuseInvite(ctx, p.invite_id),
  }),
  defineEndpoint({
    method: "POST",
    path: "/invites/:invite_id/resend",
    auth: "user",
    params: z.object({ invite_id: pathInt() }),
    handler: (p, ctx) => resendInvite(ctx, p.invite_id),
  }),
  // The sign-up page's calls (Parley's own, unauthenticated; counted per address like /fetch_api_key).
  defineEndpoint({
    method: "GET",
    path: "/invites/accept/:token",
    auth: "none",
    params: z.object({ token: str() }),
    handler: (p, ctx) => getInviteForSignup(ctx, p.token),
  }),
  defineEndpoint({
    method: "POST",
    path: "/invites/accept/:token/register",
    auth: "none",
    params: z.object({ token: str(), full_name: str(), password: str(), email: str().optional() }),
    handler: ({ token, ...input }, ctx) => registerWithInvite(ctx, token, input),
  }),
  defineEndpoint({
    method: "POST",
    path: "/invites/accept/:token/confirm_email",
    auth: "none",
    sendsEmail: true,
    params: z.object({ token: str(), email: str() }),
    handler: ({ token, ...input }, ctx) => sendSignupConfirmation(ctx, token, input),
  }),
];
