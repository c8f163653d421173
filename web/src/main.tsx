import { type FormEvent, lazy, StrictMode, Suspense, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { ApiError, call, credential, signIn } from './client';
import { finishIdentityProviderSignIn, IdentityProviderButton } from './identity-provider';
import { BrandsPage, CalendarPage, ChannelsPage, ComposerPage, PostPage } from './pages';
import { useRoute } from './router';
import './style.css';

// Pages beyond the publishing core load on first visit (keeps the first load small).
const BatchesPage = lazy(() => import('./batches'));
const DevelopersPage = lazy(() => import('./developers'));
const InboxPage = lazy(() => import('./inbox'));
const AnalyticsPage = lazy(() => import('./analytics'));
const ConsentPage = lazy(() => import('./oauth-consent'));

interface Me {
  user?: { email?: string; displayName?: string | null };
  organization?: { organizationId?: string; name?: string };
  role?: string;
}

function SignIn({ onSignedIn, initialError }: { onSignedIn: () => void; initialError: string | null }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [apiKey, setApiKey] = useState('');
  const [error, setError] = useState<string | null>(initialError);
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await signIn(email, password);
      onSignedIn();
    } catch (err) {
      setError(err instanceof ApiError ? `${err.message} (${err.code})` : 'Sign-in failed.');
    } finally {
      setBusy(false);
    }
  }

  function useKey(e: FormEvent) {
    e.preventDefault();
    credential.set(apiKey.trim());
    onSignedIn();
  }

  return (
    <main className="card narrow">
      <h1>Sign in</h1>
      <form onSubmit={submit} aria-label="sign in">
        <label>
          Email
          <input name="email" type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
        </label>
        <label>
          Password
          <input
            name="password"
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </label>
        {error && (
          <p role="alert" className="error">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <IdentityProviderButton onError={setError} />
      <details>
        <summary>Use an API key instead</summary>
        <form onSubmit={useKey} aria-label="sign in with an API key">
          <label>
            API key
            <input name="apiKey" type="password" autoComplete="off" required value={apiKey} onChange={(e) => setApiKey(e.target.value)} />
          </label>
          <button type="submit">Continue with API key</button>
        </form>
      </details>
    </main>
  );
}

const NAV: Array<[string, string]> = [
  ['/brands', 'Brands'],
  ['/channels', 'Channels'],
  ['/compose', 'Compose'],
  ['/calendar', 'Calendar'],
  ['/batches', 'Batches'],
  ['/inbox', 'Inbox'],
  ['/analytics', 'Analytics'],
  ['/developers', 'Developers'],
];

function Shell({ me, onSignedOut }: { me: Me | null; onSignedOut: () => void }) {
  const [path, navigate] = useRoute();
  const signOut = async () => {
    credential.clear();
    await call('POST', '/v1/auth/logout').catch(() => undefined);
    onSignedOut();
  };
  let page = <BrandsPage />;
  if (path.startsWith('/channels')) page = <ChannelsPage />;
  else if (path.startsWith('/compose')) page = <ComposerPage navigate={navigate} />;
  else if (path.startsWith('/calendar')) page = <CalendarPage navigate={navigate} />;
  else if (path.startsWith('/batches')) page = <BatchesPage />;
  else if (path.startsWith('/developers')) page = <DevelopersPage />;
  else if (path.startsWith('/inbox')) page = <InboxPage />;
  else if (path.startsWith('/analytics')) page = <AnalyticsPage />;
  else if (path.startsWith('/posts/')) page = <PostPage publishJobId={path.slice('/posts/'.length)} navigate={navigate} />;
  return (
    <div className="shell">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header>
        <strong>service-api</strong>
        <nav aria-label="main">
          {NAV.map(([to, label]) => (
            <a
              key={to}
              href={`/app${to}`}
              aria-current={path.startsWith(to) || (to === '/brands' && path === '/') ? 'page' : undefined}
              onClick={(e) => {
                e.preventDefault();
                navigate(to);
                // keyboard and screen reader users land on the new page, not back on the menu
                document.getElementById('main')?.focus({ preventScroll: true });
              }}
            >
              {label}
            </a>
          ))}
        </nav>
        <span className="who" data-testid="who">
          {me?.user ? (
            <>
              Signed in as <strong>{me.user.displayName ?? me.user.email}</strong>
              {me.organization?.name ? ` · ${me.organization.name}` : ''} · role <strong>{me.role}</strong>
            </>
          ) : (
            'Using an API key'
          )}
        </span>
        <button type="button" className="secondary" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        <Suspense fallback={<p aria-busy="true">Loading…</p>}>{page}</Suspense>
      </main>
    </div>
  );
}

function App() {
  const [state, setState] = useState<{ me: Me | null } | null | undefined>(undefined);
  const [signInError, setSignInError] = useState<string | null>(null);
  const refresh = () =>
    call<Me>('GET', '/v1/me')
      .then((me) => setState({ me }))
      .catch(() => setState(credential.get() ? { me: null } : null));
  useEffect(() => {
    // back from the identity provider: finish that sign-in first
    void finishIdentityProviderSignIn().then((error) => {
      setSignInError(error);
      return refresh();
    });
  }, []);
  if (state === undefined) return <p className="card narrow">Loading…</p>;
  if (state === null) return <SignIn onSignedIn={() => void refresh()} initialError={signInError} />;
  // the OAuth authorization endpoint: consent after sign-in, outside the app's navigation
  if (window.location.pathname.startsWith('/app/oauth/authorize'))
    return (
      <Suspense fallback={<p className="card narrow">Loading…</p>}>
        <ConsentPage organizationName={state.me?.organization?.name} userName={state.me?.user?.displayName ?? state.me?.user?.email} />
      </Suspense>
    );
  return <Shell me={state.me} onSignedOut={() => setState(null)} />;
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
