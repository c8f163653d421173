/**
 * What other areas may ask of users: the tool API's users, found by email, created with a membership
 * tier, and their tier (users.tier), also as part of the caller's own statement (the tool key lookup
 * reads key and tier in one statement on every tool request).
 */
import type { AliasableExpression } from 'kysely';
import type { Executor } from '../database.js';
import { identityRepository } from './identity.repository.js';

interface UserWithTier {
  id: string;
  email: string;
  tier: string;
}

export interface UsersReadPort {
  /** The user with this email (compared case-insensitively), or null. */
  byEmail(db: Executor, email: string): Promise<UserWithTier | null>;
  /** Creates a user without a password (a tool API user) with the given tier. */
  create(db: Executor, user: { id: string; email: string; tier: string; at: Date }): Promise<void>;
  /** Sets a user's membership tier. */
  setTier(db: Executor, userId: string, tier: string, at: Date): Promise<void>;
  /**
   * The tier of the user whose id is the column `userIdColumn` of the caller's statement, as a scalar
   * subquery to select (`.select(users.tierOf(db, 'k.user_id').as('tier'))`): one statement, no extra read.
   */
  tierOf(db: Executor, userIdColumn: string): AliasableExpression<string>;
}

export const usersReadPort: UsersReadPort = {
  async byEmail(db, email) {
    const user = await identityRepository.findUserByEmail(db, email);
    return user ? { id: user.id, email: user.email, tier: user.tier } : null;
  },
  async create(db, user) {
    await identityRepository.insertUser(db, { id: user.id, email: user.email, passwordHash: null, tier: user.tier, at: user.at });
  },
  setTier: identityRepository.setUserTier,
  tierOf: identityRepository.tierOf,
};
