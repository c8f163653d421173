/**
 * The HTTP request duration histogram, the one series every request writes.
 *
 * Written here rather than with prom-client's Histogram for its cost a request: prom-client's `observe`
 * copies and validates the label object, builds a `name:value,` key string from it (a new string to flatten
 * and hash on every call) and looks the bucket up in an object keyed by number, several µs a request on a
 * loaded host. Here a series is found through three maps keyed by the values themselves (route pattern,
 * method, status code) and counted in a typed array; the scrape still goes through prom-client's registry,
 * which reads any metric that answers `get()` in its format (cumulative `_bucket` series with `le`, then
 * `_sum` and `_count`), so the exposition is the one a prom-client Histogram writes.
 */

/** One line of the exposition, as prom-client's registry reads it from a metric's `get()`. */
interface SeriesValue {
  metricName: string;
  labels: Record<string, string>;
  value: number;
}

interface Series {
  method: string;
  route: string;
  status: string;
  /** observations per bucket (not cumulative); the last slot is +Inf */
  counts: Float64Array;
  sum: number;
  count: number;
}

export class RequestDurationHistogram {
  readonly type = 'histogram';
  /** how a cluster master would merge the workers' series (prom-client's AggregatorRegistry) */
  readonly aggregator = 'sum' as const;
  private readonly byRoute = new Map<string, Map<string, Map<number, Series>>>();
  private readonly bucketLabels: string[];

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly buckets: readonly number[],
  ) {
    this.bucketLabels = [...buckets.map(String), '+Inf'];
  }

  observe(method: string, route: string, status: number, seconds: number): void {
    let byMethod = this.byRoute.get(route);
    if (!byMethod) {
      byMethod = new Map();
      this.byRoute.set(route, byMethod);
    }
    let byStatus = byMethod.get(method);
    if (!byStatus) {
      byStatus = new Map();
      byMethod.set(method, byStatus);
    }
    let series = byStatus.get(status);
    if (!series) {
      series = { method, route, status: String(status), counts: new Float64Array(this.buckets.length + 1), sum: 0, count: 0 };
      byStatus.set(status, series);
    }
    // a duration that is not a finite number (never expected) is counted in +Inf rather than thrown
    let i = 0;
    while (i < this.buckets.length && !(seconds <= this.buckets[i]!)) i++;
    series.counts[i]!++;
    if (Number.isFinite(seconds)) series.sum += seconds;
    series.count++;
  }

  /** prom-client's Metric interface: what the registry writes at a scrape. */
  get(): { name: string; help: string; type: string; aggregator: string; values: SeriesValue[] } {
    const values: SeriesValue[] = [];
    for (const byMethod of this.byRoute.values())
      for (const byStatus of byMethod.values())
        for (const s of byStatus.values()) {
          const labels = { method: s.method, route: s.route, status_code: s.status };
          let cumulative = 0;
          for (let i = 0; i < this.bucketLabels.length; i++) {
            cumulative += s.counts[i]!;
            values.push({ metricName: `${this.name}_bucket`, labels: { le: this.bucketLabels[i]!, ...labels }, value: cumulative });
          }
          values.push({ metricName: `${this.name}_sum`, labels, value: s.sum });
          values.push({ metricName: `${this.name}_count`, labels, value: s.count });
        }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  reset(): void {
    this.byRoute.clear();
  }
}
