import { type FormEvent, lazy, StrictMode, Suspense, useCallback, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { call, credential, signIn } from './client';
import { finishIdentityProviderSignIn, IdentityProviderButton } from './identity-provider';
import { Logo } from './logo';
import { BrandsPage, CalendarPage, ChannelsPage, ComposerPage, PostPage } from './pages';
import { useRoute } from './router';
import { type Me, PRODUCT_NAME, SessionContext } from './session';
import { Alert, Loading, message } from './ui';
import './style.css';

// Pages beyond the publishing core load on first visit (keeps the first load small).
const BatchesPage = lazy(() => import('./pages/batches'));
const DevelopersPage = lazy(() => import('./pages/developers'));
const InboxPage = lazy(() => import('./pages/inbox'));
const AnalyticsPage = lazy(() => import('./pages/analytics'));
const SettingsPage = lazy(() => import('./pages/settings'));
const ConsentPage = lazy(() => import('./oauth-consent'));

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
      setError(message(err));
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
      <div className="brandmark">
        <Logo />
        <span>{PRODUCT_NAME}</span>
      </div>
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
        <Alert text={error} />
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
  ['/settings', 'Settings'],
];

function Shell({ me, onSignedOut }: { me: Me | null; onSignedOut: () => void }) {
  const [path, navigate] = useRoute();
  const [menuOpen, setMenuOpen] = useState(false);
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
  else if (path.startsWith('/settings')) page = <SettingsPage />;
  else if (path.startsWith('/inbox')) page = <InboxPage />;
  else if (path.startsWith('/analytics')) page = <AnalyticsPage />;
  else if (path.startsWith('/posts/')) page = <PostPage publishJobId={path.slice('/posts/'.length)} navigate={navigate} />;
  const who = me?.user ? (me.user.displayName ?? me.user.email) : null;
  return (
    <SessionContext.Provider value={me}>
      <div className="shell">
        <a className="skip" href="#main">
          Skip to content
        </a>
        <header>
          <a
            className="brandmark"
            href="/app/"
            onClick={(e) => {
              e.preventDefault();
              navigate('/brands');
            }}
          >
            <Logo />
            <span>{PRODUCT_NAME}</span>
          </a>
          <button
            type="button"
            className="menu-toggle secondary"
            aria-expanded={menuOpen}
            aria-controls="main-nav"
            onClick={() => setMenuOpen((o) => !o)}
          >
            Menu
          </button>
          <nav aria-label="main" id="main-nav" className={menuOpen ? 'open' : undefined}>
            {NAV.map(([to, label]) => (
              <a
                key={to}
                href={`/app${to}`}
                aria-current={path.startsWith(to) || (to === '/brands' && path === '/') ? 'page' : undefined}
                onClick={(e) => {
                  e.preventDefault();
                  setMenuOpen(false);
                  navigate(to);
                  // keyboard and screen reader users land on the new page, not back on the menu
                  document.getElementById('main')?.focus({ preventScroll: true });
                }}
              >
                {label}
              </a>
            ))}
          </nav>
          <details className="account">
            <summary data-testid="who">
              <span className="sr-only">Account: </span>
              <span className="avatar" aria-hidden="true">
                {(who ?? 'K').slice(0, 1).toUpperCase()}
              </span>
              <span className="who-name">{who ?? 'API key'}</span>
            </summary>
            <div className="account-menu">
              {me?.user ? (
                <p>
                  Signed in as <strong>{who}</strong>
                  {me.organization?.name ? ` · ${me.organization.name}` : ''} · role <strong>{me.role}</strong>
                </p>
              ) : (
                <p>Using an API key</p>
              )}
              <button type="button" className="secondary" onClick={signOut}>
                Sign out
              </button>
            </div>
          </details>
        </header>
        <main id="main" tabIndex={-1}>
          <Suspense fallback={<Loading />}>{page}</Suspense>
        </main>
      </div>
    </SessionContext.Provider>
  );
}

function App() {
  const [state, setState] = useState<{ me: Me | null } | null | undefined>(undefined);
  const [signInError, setSignInError] = useState<string | null>(null);
  const refresh = useCallback(
    () =>
      call<Me>('GET', '/v1/me')
        .then((me) => setState({ me }))
        .catch(() => setState(credential.get() ? { me: null } : null)),
    [],
  );
  useEffect(() => {
    // back from the identity provider: finish that sign-in first
    void finishIdentityProviderSignIn().then((error) => {
      setSignInError(error);
      return refresh();
    });
  }, [refresh]);
  if (state === undefined)
    return (
      <div className="card narrow">
        <Loading />
      </div>
    );
  if (state === null) return <SignIn onSignedIn={() => void refresh()} initialError={signInError} />;
  // the OAuth authorization endpoint: consent after sign-in, outside the app's navigation
  if (window.location.pathname.startsWith('/app/oauth/authorize'))
    return (
      <Suspense
        fallback={
          <div className="card narrow">
            <Loading />
          </div>
        }
      >
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
