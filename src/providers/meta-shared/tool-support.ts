/** Small helpers shared by the Meta adapters' tool handlers. */
import { type Platform, type ProviderCallContext, ProviderError, type ProviderToolName, type SocialProvider } from '../provider.js';

function unsupportedTool(platform: Platform, toolName: ProviderToolName): ProviderError {
  return new ProviderError({
    platform,
    category: 'platform_rejected',
    message: `${platform} does not support the ${toolName} tool`,
  });
}

function requireStringInput(platform: Platform, input: Record<string, unknown>, ...names: string[]): string {
  for (const name of names) {
    const value = input[name];
    if (typeof value === 'string' && value.trim()) return value.trim().replace(/^@/, '');
  }
  throw new ProviderError({
    platform,
    category: 'user_content',
    message: `input ${names[0]} is required`,
  });
}

/** Graph `fields` values must not carry characters that would break the field expression. */
export function safeFieldArgument(value: string): string {
  return value.replace(/[^A-Za-z0-9._]/g, '');
}

type ToolRows = Array<Record<string, unknown>>;

/**
 * runTool of a Meta adapter: pageProfile answers the connected account's own profile; mentionSearch, where
 * the platform has one, searches for the first of its `inputs` given; any other tool is unsupported.
 */
export function metaToolRunner(
  platform: Platform,
  profile: (ctx: ProviderCallContext) => Promise<Record<string, unknown>>,
  mentionSearch?: { inputs: string[]; search: (ctx: ProviderCallContext, query: string) => Promise<ToolRows> },
): SocialProvider['runTool'] {
  return async (ctx, toolName, input) => {
    if (toolName === 'pageProfile') return [await profile(ctx)];
    if (toolName === 'mentionSearch' && mentionSearch)
      return mentionSearch.search(ctx, requireStringInput(platform, input, ...mentionSearch.inputs));
    throw unsupportedTool(platform, toolName);
  };
}
