/** Small helpers shared by the Meta adapters' tool handlers. */
import { type Platform, ProviderError, type ProviderToolName } from '../provider.js';

export function unsupportedTool(platform: Platform, toolName: ProviderToolName): ProviderError {
  return new ProviderError({
    platform,
    category: 'platform_rejected',
    message: `${platform} does not support the ${toolName} tool`,
  });
}

export function requireStringInput(platform: Platform, input: Record<string, unknown>, ...names: string[]): string {
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
