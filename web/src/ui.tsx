/** Small shared pieces of the pages: loading, empty and error states, and the confirmation dialog. */
import { type ReactNode, useCallback, useEffect, useRef, useState } from 'react';
import { ServiceApiError } from './client';

/**
 * What a person can do about the refusals they meet most; other errors use the server's own message
 * (written as a sentence). The code, status and request id go to a details line.
 */
const SENTENCES: Record<string, string> = {
  dashboard_session_required: 'Your session has ended. Sign in again to continue.',
  public_api_token_required: 'This action needs you to be signed in. Sign in again to continue.',
  public_api_token_forbidden: 'The API key was not accepted: it may be revoked or lack the scope for this action.',
  sign_in_failed: 'The email or password is not right. Check both and try again.',
  network_error: 'The server could not be reached. Check your connection and try again.',
  membership_required: 'Your plan has no tool API access. Ask your administrator to move you to Pro or Max.',
  rate_limited: 'Too many requests in a short time. Wait a moment and try again.',
  internal_server_error: 'Something went wrong on our side. Try again; if it keeps happening, share the details below with support.',
};

/** "sentence\ndetails": the sentence a person reads first, then the code for support. */
export function message(e: unknown): string {
  if (e instanceof ServiceApiError) {
    const serverText = typeof e.body.message === 'string' ? e.body.message : '';
    let sentence = SENTENCES[e.error] ?? serverText;
    if (e.error === 'permission_denied') {
      sentence = /origin/i.test(serverText)
        ? serverText
        : `Your role does not allow this. Ask an owner or admin of your organization.${serverText ? ` (${serverText})` : ''}`;
    }
    if (!sentence) sentence = 'The request did not go through. Try again.';
    const details = [`Code: ${e.error}`, e.status ? `HTTP ${e.status}` : null, e.requestId ? `request ${e.requestId}` : null].filter(
      Boolean,
    );
    return `${sentence}\n${details.join(' · ')}`;
  }
  if (e instanceof TypeError) return `${SENTENCES.network_error}\n${e.message}`;
  return String(e instanceof Error ? e.message : e);
}

export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): [T | undefined, string | null, () => void] {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<string | null>(null);
  const [tick, setTick] = useState(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: callers pass the inputs of load
  useEffect(() => {
    let live = true;
    load().then(
      (d) => {
        if (!live) return;
        setData(d);
        setError(null);
      },
      (e) => {
        if (live) setError(message(e));
      },
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  return [data, error, useCallback(() => setTick((t) => t + 1), [])];
}

/** An error as a sentence, with its code in a smaller details line. */
export function Alert({ text }: { text: string | null }) {
  if (!text) return null;
  const [sentence, ...details] = text.split('\n');
  return (
    <div role="alert" className="error">
      <p>{sentence}</p>
      {details.length > 0 && <p className="details">{details.join(' ')}</p>}
    </div>
  );
}

/** A loading line announced to screen readers. */
export function Loading({ what = 'Loading' }: { what?: string }) {
  return (
    <p className="loading" aria-busy="true" role="status">
      <span className="spinner" aria-hidden="true" />
      {what}…
    </p>
  );
}

/** What an empty list means and what to do next. */
export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <strong>{title}</strong>
      {children && <div>{children}</div>}
    </div>
  );
}

/**
 * A modal confirmation (the native <dialog>: focus moves into it, Escape cancels, the page behind is
 * inert), in place of window.confirm.
 */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  danger = false,
  onConfirm,
  onCancel,
}: {
  open: boolean;
  title: string;
  children?: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby="dialog-title"
      onCancel={(e) => {
        e.preventDefault();
        onCancel();
      }}
    >
      <h2 id="dialog-title">{title}</h2>
      {children}
      <div className="dialog-actions">
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" className={danger ? 'danger' : undefined} onClick={onConfirm}>
          {confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
