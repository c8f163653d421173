/**
 * Route handlers still running, so that closing the app waits for them. Fastify's close ends once the
 * connections are gone, and a client that leaves mid-request takes its connection with it while the
 * route's handler goes on: the process then closed the database (src/main/runtime.ts) under a handler
 * between two of its writes, and the handler failed with "driver has already been destroyed". Each route's
 * handler is wrapped when the route is added, and a preClose hook (new requests are answered 503 by then)
 * waits until no handler runs that has not answered yet, at most the shutdown timeout. A hijacked reply
 * (an MCP stream) counts as answered: its stream is closed by the MCP area's own close hook.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

type Handler = (this: unknown, request: FastifyRequest, reply: FastifyReply) => unknown;

class HandlersInFlight {
  private readonly running = new Set<FastifyReply>();

  /**
   * The handler, counted while the promise it returns is pending. Fastify is handed the handler's own promise:
   * the count is kept on a branch of its own (one reaction), not by a `finally` in between, which would cost
   * three more promises and three more microtask turns before every answer is sent.
   */
  wrap(handler: Handler): Handler {
    const running = this.running;
    return function (this: unknown, request, reply) {
      const result = handler.call(this, request, reply);
      if (result instanceof Promise) {
        running.add(reply);
        const settled = () => running.delete(reply);
        // both outcomes handled: the branch never rejects (Fastify handles the handler's rejection)
        result.then(settled, settled);
      }
      return result;
    };
  }

  /** handlers running that have not answered */
  get unanswered(): number {
    let n = 0;
    for (const reply of this.running) if (!reply.sent) n++;
    return n;
  }

  /** Resolves true once no handler runs without having answered, false after `timeoutMs`. */
  async settled(timeoutMs: number): Promise<boolean> {
    const end = Date.now() + timeoutMs;
    while (this.unanswered > 0) {
      if (Date.now() >= end) return false;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return true;
  }
}

/** Wraps every route added from now on; closing waits for their handlers, at most `timeoutMs`. */
export function waitForHandlersOnClose(app: FastifyInstance, timeoutMs: number): void {
  const inFlight = new HandlersInFlight();
  app.addHook('onRoute', (route) => {
    route.handler = inFlight.wrap(route.handler as Handler) as typeof route.handler;
  });
  app.addHook('preClose', async () => {
    if (!(await inFlight.settled(timeoutMs))) app.log.warn({ handlers: inFlight.unanswered }, 'closing with route handlers still running');
  });
}
