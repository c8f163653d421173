/** Small helpers the benchmarks share: percentiles of latency samples, and a pause. */

/** Nearest-rank percentile (p from 0 to 100) of the samples, in any order; NaN when there are none. */
export function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** The middle sample (the upper one of an even count). */
export function median(samples: number[]): number {
  return [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)]!;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
