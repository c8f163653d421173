/**
 * In-memory state of the Pinterest simulator: the OAuth codes and tokens it issued, users, boards,
 * registered media uploads and Pins with their metrics. Tests read and steer it directly.
 */
import { randomBytes, randomInt } from 'node:crypto';
import { type PersistableState, pickFields, restoreFields } from '../../sandbox-store.js';

export interface SimPinUser {
  id: string;
  username: string;
  businessName: string;
  profileImage: string;
}

export interface SimBoard {
  id: string;
  ownerId: string;
  name: string;
  description: string;
  privacy: 'PUBLIC' | 'PROTECTED' | 'SECRET';
  pinCount: number;
}

export interface SimPinToken {
  userId: string;
  scopes: string[];
  expiresAt: number;
  revoked: boolean;
}

export interface SimMedia {
  ownerId: string;
  status: 'registered' | 'processing' | 'succeeded' | 'failed';
  key: string;
  signature: string;
  readsUntilSucceeded: number;
  bytes: number;
}

export interface SimPin {
  ownerId: string;
  resource: Record<string, unknown> & { id: string };
  metrics: {
    IMPRESSION: number;
    SAVE: number;
    PIN_CLICK: number;
    OUTBOUND_CLICK: number;
  };
}

/** Numeric ids like Pinterest's (board and Pin ids are 18-digit strings). */
function numericId(digits = 18): string {
  let out = String(randomInt(1, 10));
  while (out.length < digits) out += String(randomInt(0, 10));
  return out;
}

const PERSISTED = ['users', 'boards', 'codes', 'accessTokens', 'refreshTokens', 'media', 'pins'] as const;

export class PinterestSimulatorState implements PersistableState {
  users: SimPinUser[] = [
    {
      id: numericId(),
      username: 'sandbox_pinner',
      businessName: 'Sandbox Pinner',
      profileImage: 'https://i.pinimg.example/75x75_RS/sandbox.jpg',
    },
  ];
  boards: SimBoard[];
  readonly codes = new Map<
    string,
    {
      clientId: string;
      redirectUri: string;
      scopes: string[];
      userId: string;
      used: boolean;
    }
  >();
  readonly accessTokens = new Map<string, SimPinToken>();
  readonly refreshTokens = new Map<string, { userId: string; scopes: string[]; clientId: string; revoked: boolean }>();
  readonly media = new Map<string, SimMedia>();
  readonly pins = new Map<string, SimPin>();
  /** GET /v5/media/{id} reads before an uploaded video reports `succeeded` (0: at once) */
  mediaProcessingReads = 1;
  /** when set, the token endpoint checks the Basic credentials against it */
  client: { id: string; secret: string } | null = null;
  /** the image_url fetch's bound for remote hosts (loopback media gets a generous one: media-fetch-timeout.ts) */
  imageFetchTimeoutMs = 3000;
  accessTokenLifetimeSeconds = 30 * 86_400;
  refreshTokenLifetimeSeconds = 365 * 86_400;

  constructor() {
    const owner = this.defaultUser.id;
    this.boards = [
      {
        id: numericId(),
        ownerId: owner,
        name: 'Sandbox Ideas',
        description: 'Ideas board',
        privacy: 'PUBLIC',
        pinCount: 0,
      },
      {
        id: numericId(),
        ownerId: owner,
        name: 'Recipes',
        description: '',
        privacy: 'PUBLIC',
        pinCount: 0,
      },
      {
        id: numericId(),
        ownerId: owner,
        name: 'Drafts',
        description: '',
        privacy: 'SECRET',
        pinCount: 0,
      },
    ];
  }

  snapshot(): Record<string, unknown> {
    return pickFields(this, PERSISTED);
  }

  restore(data: Record<string, unknown>): void {
    restoreFields(this, data, PERSISTED);
  }

  get defaultUser(): SimPinUser {
    const first = this.users[0];
    if (!first) throw new Error('simulator has no user');
    return first;
  }

  newPinId(): string {
    return numericId();
  }

  newMediaId(): string {
    return numericId(19);
  }

  newCode(): string {
    return randomBytes(20).toString('hex');
  }

  issueTokens(userId = this.defaultUser.id, scopes: string[] = ALL_PINTEREST_SCOPES, clientId = 'sandbox') {
    const accessToken = `pina_${randomBytes(30).toString('base64url')}`;
    const refreshToken = `pinr_${randomBytes(30).toString('base64url')}`;
    this.accessTokens.set(accessToken, {
      userId,
      scopes,
      expiresAt: Date.now() + this.accessTokenLifetimeSeconds * 1000,
      revoked: false,
    });
    this.refreshTokens.set(refreshToken, {
      userId,
      scopes,
      clientId,
      revoked: false,
    });
    return { accessToken, refreshToken, scopes };
  }

  refreshAccess(refreshToken: string): string {
    const grant = this.refreshTokens.get(refreshToken);
    if (!grant) throw new Error('unknown refresh token');
    const accessToken = `pina_${randomBytes(30).toString('base64url')}`;
    this.accessTokens.set(accessToken, {
      userId: grant.userId,
      scopes: grant.scopes,
      expiresAt: Date.now() + this.accessTokenLifetimeSeconds * 1000,
      revoked: false,
    });
    return accessToken;
  }

  expireAccessToken(token: string): void {
    const t = this.accessTokens.get(token);
    if (t) t.expiresAt = Date.now() - 1;
  }

  /** What a user removing the app in Pinterest settings does: every token of the grant stops working. */
  revokeUserApp(userId: string): void {
    for (const t of this.accessTokens.values()) if (t.userId === userId) t.revoked = true;
    for (const r of this.refreshTokens.values()) if (r.userId === userId) r.revoked = true;
  }

  validAccessToken(token: string): SimPinToken | null {
    const t = this.accessTokens.get(token);
    if (!t || t.revoked || t.expiresAt <= Date.now()) return null;
    return t;
  }

  boardsOf(userId: string): SimBoard[] {
    return this.boards.filter((b) => b.ownerId === userId);
  }
}

const ALL_PINTEREST_SCOPES = ['boards:read', 'pins:read', 'pins:write', 'user_accounts:read'];
