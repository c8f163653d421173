import { useEffect, useState } from 'react';

const BASE = '/app';

const read = () => window.location.pathname.replace(/^\/app/, '') || '/';

/** The path under /app/ (e.g. "/calendar") and a navigate function using the History API. */
export function useRoute(): [string, (to: string) => void] {
  const [path, setPath] = useState(read);
  useEffect(() => {
    const onPop = () => setPath(read());
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);
  const navigate = (to: string) => {
    window.history.pushState(null, '', BASE + to);
    setPath(to.split('?')[0] ?? to);
  };
  return [path, navigate];
}
