/** `invites_changed`: the set of invitations changed; clients showing them refetch GET /invites. */

/** The set of open invitations changed (sent to administrators and the invitation's creator). */
export type InvitesChangedEvent = { type: "invites_changed" };

/** The one invites_changed event. */
export function invitesChangedEvent(): InvitesChangedEvent {
  return { type: "invites_changed" };
}
