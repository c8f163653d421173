/**
 * The /mcp session store: a session answers only the grant that created it, ends when idle, and one
 * grant cannot hold more than its share (its own oldest session ends, not another client's).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { IDLE_MS, MAX_SESSIONS_PER_GRANT, McpSessions } from '../../src/modules/mcp/mcp.sessions.js';

const session = (binding: string) => ({
  transport: new StreamableHTTPServerTransport({ sessionIdGenerator: undefined }),
  server: new Server({ name: 't', version: '1' }, { capabilities: {} }),
  binding,
});

describe('MCP sessions', () => {
  it('answers a session only to its grant, and ends it when idle', () => {
    let now = 0;
    const sessions = new McpSessions(() => now);
    sessions.add('s1', session('oag_a'));
    assert.ok(sessions.find('s1', 'oag_a'));
    assert.equal(sessions.find('s1', 'oag_b'), null, 'another grant does not see it');
    assert.equal(sessions.find('unknown', 'oag_a'), null);
    now += IDLE_MS - 1;
    assert.ok(sessions.find('s1', 'oag_a'), 'use renews it');
    now += IDLE_MS + 1;
    assert.equal(sessions.find('s1', 'oag_a'), null);
    assert.equal(sessions.size, 0);
  });

  it('caps the sessions of one grant by ending its own oldest', () => {
    let now = 0;
    const sessions = new McpSessions(() => now);
    sessions.add('other', session('oag_other'));
    for (let i = 0; i <= MAX_SESSIONS_PER_GRANT; i++) {
      now += 1;
      sessions.add(`a${i}`, session('oag_a'));
    }
    assert.equal(sessions.find('a0', 'oag_a'), null, 'the oldest of the grant ended');
    assert.ok(sessions.find(`a${MAX_SESSIONS_PER_GRANT}`, 'oag_a'));
    assert.ok(sessions.find('other', 'oag_other'), 'another grant keeps its session');
    assert.equal(sessions.size, MAX_SESSIONS_PER_GRANT + 1);
  });
});
