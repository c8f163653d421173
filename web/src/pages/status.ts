/** Badge classes of publish job and target states (calendar, post page). */
export const STATUS_CLASS: Record<string, string> = {
  published: 'ok',
  pending_approval: 'warn',
  scheduled: 'info',
  queued: 'info',
  publishing: 'info',
  partially_published: 'warn',
  needs_attention: 'warn',
  needs_reconnect: 'bad',
  failed: 'bad',
  missed: 'bad',
  cancelled: 'muted',
};
