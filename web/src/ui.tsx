/** Small shared pieces of the pages: loading state, error text, the route-may-not-exist helper. */
import { useCallback, useEffect, useState } from 'react';
import { ApiError } from './client';

export const message = (e: unknown) => (e instanceof ApiError ? `${e.message} (${e.code})` : String(e));

export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): [T | undefined, string | null, () => void] {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<string | null>(null);
  const [tick, setTick] = useState(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: callers pass the inputs of load
  useEffect(() => {
    let live = true;
    load().then(
      (d) => live && (setData(d), setError(null)),
      (e) => live && setError(message(e)),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  return [data, error, useCallback(() => setTick((t) => t + 1), [])];
}

export function Alert({ text }: { text: string | null }) {
  return text ? (
    <p role="alert" className="error">
      {text}
    </p>
  ) : null;
}

/** A route another area is still building: its answer, or `unavailable` when the server answers 404. */
export type Maybe<T> = { available: true; data: T } | { available: false };

export async function maybe<T>(load: () => Promise<T>): Promise<Maybe<T>> {
  try {
    return { available: true, data: await load() };
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) return { available: false };
    throw e;
  }
}

export function Unavailable({ what }: { what: string }) {
  return (
    <p role="status" className="panel muted">
      {what} is not available on this server yet.
    </p>
  );
}
