/** Small shared pieces of the pages: loading state and error text. */
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
