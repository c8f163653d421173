/**
 * request.parts() of @fastify/multipart ends the iteration when the raw request emits 'close', which
 * happens as soon as the last bytes have been handed to the parser, not when the parser has read them.
 * A field after a large file is still in the parser's buffer then (it waits for the file stream to be
 * drained) and was silently dropped. This iterator ends on the parser's own end instead, and still on
 * a request that closed before it was complete (a client that went away).
 */
import type { FastifyRequest } from 'fastify';

type PartsOptions = Parameters<FastifyRequest['parts']>[0];
type Listener = (...args: unknown[]) => void;

export async function* multipartParts(request: FastifyRequest, options?: PartsOptions) {
  const iterator = request.parts(options);
  // the first next() sets the parser up synchronously (and registers its listeners) before it awaits
  const first = iterator.next();
  const raw = request.raw;
  const cleanup = raw.listeners('close').find((l) => (l as Listener).name === 'cleanup') as Listener | undefined;
  if (cleanup) {
    raw.removeListener('close', cleanup);
    raw.on('close', (...args: unknown[]) => {
      if (!raw.complete) cleanup(...args);
    });
  }
  let result = await first;
  while (!result.done) {
    yield result.value;
    result = await iterator.next();
  }
}
