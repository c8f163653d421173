/** The pageProfile tool's view of an Instagram professional account read from the Graph API. */
export function instagramProfileView(
  u: Record<string, unknown>,
  externalAccountId: string,
  /** fields one API adds after the display name */
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    externalAccountId,
    handle: u.username ?? null,
    displayName: u.name ?? u.username ?? null,
    ...extra,
    biography: u.biography ?? null,
    website: u.website ?? null,
    avatarUrl: u.profile_picture_url ?? null,
    followersCount: Number(u.followers_count ?? 0),
    followingCount: Number(u.follows_count ?? 0),
    mediaCount: Number(u.media_count ?? 0),
  };
}
