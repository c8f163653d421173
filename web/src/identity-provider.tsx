/**
 * Sign-in through the OpenID Connect provider (docs/sessions.md): the "Sign in with <provider>" button,
 * shown when the service has one configured, and the return from the provider at
 * /app/sign-in/identity-provider, whose code and state go to /v1/auth/identity-provider/callback.
 */
import { useEffect, useState } from 'react';
import { call } from './client';
import { message } from './ui';

interface ProviderInfo {
  configured: boolean;
  name: string | null;
}

const CALLBACK_PATH = '/app/sign-in/identity-provider';

export function IdentityProviderButton({ onError }: { onError: (message: string) => void }) {
  const [info, setInfo] = useState<ProviderInfo | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    call<ProviderInfo>('GET', '/v1/auth/identity-provider')
      .then(setInfo)
      .catch(() => setInfo(null));
  }, []);
  if (!info?.configured) return null;
  const go = async () => {
    setBusy(true);
    try {
      const r = await call<{ authorizationUrl: string }>('POST', '/v1/auth/identity-provider/start', { returnTo: '/' });
      window.location.assign(r.authorizationUrl);
    } catch (err) {
      onError(message(err));
      setBusy(false);
    }
  };
  return (
    <button type="button" className="secondary" disabled={busy} onClick={() => void go()}>
      {busy ? 'Redirecting…' : `Sign in with ${info.name}`}
    </button>
  );
}

/**
 * On the provider's redirect: finishes the sign-in (the session cookie is set by the answer), then
 * replaces the URL with the returnTo path so the code never stays in the history. Answers an error to
 * show on the sign-in page, or null.
 */
export async function finishIdentityProviderSignIn(): Promise<string | null> {
  if (window.location.pathname !== CALLBACK_PATH) return null;
  const q = new URLSearchParams(window.location.search);
  window.history.replaceState(null, '', '/app/');
  if (q.get('error')) return `The identity provider refused the sign-in (${q.get('error')}).`;
  const code = q.get('code');
  const state = q.get('state');
  if (!code || !state) return null;
  try {
    const r = await call<{ returnTo: string | null }>('POST', '/v1/auth/identity-provider/callback', {
      code,
      state,
      ...(q.get('iss') ? { iss: q.get('iss') } : {}),
    });
    if (r.returnTo?.startsWith('/')) window.history.replaceState(null, '', `/app${r.returnTo === '/' ? '/' : r.returnTo}`);
    return null;
  } catch (err) {
    return message(err);
  }
}
