/** Badge classes of publish job and target states (calendar, post page). */
export const STATUS_CLASS: Record<string, string> = {
  published: 'ok',
  scheduled: 'info',
  queued: 'info',
  publishing: 'info',
  partially_published: 'warn',
  needs_attention: 'warn',
  needs_reconnect: 'bad',
  failed: 'bad',
  cancelled: 'muted',
};
