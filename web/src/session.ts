/** Who is signed in, and which actions their role allows (the policy ids of GET /v1/me). */
import { createContext, useContext } from 'react';

export interface Me {
  user?: { email?: string; displayName?: string | null };
  organization?: { organizationId?: string; name?: string };
  role?: string;
  policies?: string[];
}

/** null: signed in with an API key (the key's scopes decide; every action is offered). */
export const SessionContext = createContext<Me | null>(null);

/** Whether the signed-in person's role passes a policy of the table (always true with an API key). */
export function useCan(): (policy: string) => boolean {
  const me = useContext(SessionContext);
  return (policy) => !me?.policies || me.policies.includes(policy);
}

export const useMe = () => useContext(SessionContext);

/** The product's name, shown in the header, the sign-in page and the title. */
export const PRODUCT_NAME = 'Social Publisher';
