/**
 * An explicit list of subscribers to one cross-area reaction (a channel disconnect, a media delete's
 * reference check). The composition root creates each list once, hands it to the area that calls the
 * subscribers and subscribes the areas that react; nothing registers itself on import.
 */
export class Subscribers<F> {
  private readonly list: F[] = [];

  /** Adds a subscriber (adding the same function twice is a no-op); answers an unsubscribe function. */
  subscribe(fn: F): () => void {
    if (!this.list.includes(fn)) this.list.push(fn);
    return () => {
      const i = this.list.indexOf(fn);
      if (i >= 0) this.list.splice(i, 1);
    };
  }

  /** A snapshot of the subscribers in the order they subscribed. */
  all(): readonly F[] {
    return [...this.list];
  }
}
