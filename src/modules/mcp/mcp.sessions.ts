/**
 * MCP sessions of the /mcp endpoint (Streamable HTTP): each has a random id (a UUID from the
 * transport's generator) and is bound to the grant of the token that created it, so another
 * credential presenting the id is answered 404 as if the session did not exist. Sessions live in this
 * process's memory: idle ones end after IDLE_MS, at most MAX_SESSIONS are kept (the oldest idle one
 * ends first), and a client whose session is gone (404) initializes a new one, as the specification
 * says. One grant holds at most MAX_SESSIONS_PER_GRANT, so one client cannot push the others out.
 * Several API processes behind a balancer need session affinity on the Mcp-Session-Id header.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

export const IDLE_MS = 30 * 60_000;
const MAX_SESSIONS = 1_000;
/** sessions one grant may hold; its oldest ends when it opens one more */
export const MAX_SESSIONS_PER_GRANT = 20;

interface Session {
  transport: StreamableHTTPServerTransport;
  server: Server;
  /** the grant (or credential subject) the session is bound to */
  binding: string;
  lastSeen: number;
}

export class McpSessions {
  private readonly sessions = new Map<string, Session>();

  constructor(private readonly now: () => number) {}

  get size(): number {
    return this.sessions.size;
  }

  add(id: string, session: Omit<Session, 'lastSeen'>): void {
    this.sweep();
    const own = [...this.sessions.entries()].filter(([, s]) => s.binding === session.binding);
    if (own.length >= MAX_SESSIONS_PER_GRANT) this.endOldest(own);
    if (this.sessions.size >= MAX_SESSIONS) this.endOldest([...this.sessions.entries()]);
    this.sessions.set(id, { ...session, lastSeen: this.now() });
  }

  /** The session of this id if it is bound to this credential's grant; null otherwise. */
  find(id: string, binding: string): Session | null {
    const s = this.sessions.get(id);
    if (!s || s.binding !== binding) return null;
    if (this.now() - s.lastSeen > IDLE_MS) {
      this.end(id);
      return null;
    }
    s.lastSeen = this.now();
    return s;
  }

  private endOldest(entries: Array<[string, Session]>): void {
    const oldest = entries.sort((a, b) => a[1].lastSeen - b[1].lastSeen)[0];
    if (oldest) this.end(oldest[0]);
  }

  forget(id: string): void {
    this.sessions.delete(id);
  }

  end(id: string): void {
    const s = this.sessions.get(id);
    if (!s) return;
    this.sessions.delete(id);
    void s.transport.close().catch(() => undefined);
    void s.server.close().catch(() => undefined);
  }

  sweep(): void {
    const now = this.now();
    for (const [id, s] of this.sessions) if (now - s.lastSeen > IDLE_MS) this.end(id);
  }

  closeAll(): void {
    for (const id of [...this.sessions.keys()]) this.end(id);
  }
}
