/** How the Batches page writes times: local time and day, and the slot a post took with its jitter. */
export const fmtTime = (iso: string) => new Date(iso).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
export const fmtDay = (iso: string) => new Date(iso).toLocaleDateString(undefined, { weekday: 'short', day: 'numeric', month: 'short' });

/** Which posting time a post took and how far the jitter moved it, e.g. " · slot 09:00 (+4 min)". */
export function slotNote(a: { slotAt: string | null; jitterSeconds: number; manual: boolean }): string {
  if (a.manual || !a.slotAt) return ' · set by hand';
  const minutes = Math.round(a.jitterSeconds / 60);
  const shift = minutes === 0 ? 'on time' : `${minutes > 0 ? '+' : '−'}${Math.abs(minutes)} min`;
  return ` · slot ${fmtTime(a.slotAt)} (${shift})`;
}
