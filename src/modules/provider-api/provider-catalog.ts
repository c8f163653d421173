/**
 * The provider tool and plug definitions of ProviderCapabilitiesResponse. Which platforms offer a tool
 * or plug is not repeated here: it comes from the adapters' capability data (toolNames, plugNames),
 * the same data plan validation reads.
 */
import type { ProviderPlugName, ProviderSettingRule, ProviderToolName, SocialProvider } from '../../providers/provider.js';

type ToolCategory = 'account_lookup' | 'composer_lookup' | 'publishing_option';
type ToolOutputKind = 'account_reference' | 'profile' | 'category' | 'board' | 'privacy_option' | 'community';

interface ToolText {
  label: string;
  category: ToolCategory;
  description: string;
  inputFields: ProviderSettingRule[];
  outputKind: ToolOutputKind;
}

const query: ProviderSettingRule = {
  field: 'query',
  label: 'Search text (name or @handle)',
  valueType: 'string',
  required: true,
};

const TOOL_TEXT: Record<ProviderToolName, ToolText> = {
  mentionSearch: {
    label: 'Mention search',
    category: 'composer_lookup',
    description: 'Finds accounts or pages to mention in a post, by name or handle.',
    inputFields: [query],
    outputKind: 'account_reference',
  },
  pageProfile: {
    label: 'Page profile',
    category: 'account_lookup',
    description: "Reads the connected account's own profile (name, handle, picture, audience size).",
    inputFields: [],
    outputKind: 'profile',
  },
  channelCategories: {
    label: 'Channel categories',
    category: 'publishing_option',
    description: 'Lists the categories a post may be filed under (YouTube video categories of a region).',
    inputFields: [
      {
        field: 'regionCode',
        label: 'ISO 3166-1 region code (default US)',
        valueType: 'string',
        required: false,
      },
      {
        field: 'hl',
        label: 'Language of the category names (BCP-47)',
        valueType: 'string',
        required: false,
      },
    ],
    outputKind: 'category',
  },
  boardList: {
    label: 'Board list',
    category: 'publishing_option',
    description: 'Lists the boards of the connected account a Pin can be saved to.',
    inputFields: [],
    outputKind: 'board',
  },
  privacyOptions: {
    label: 'Privacy options',
    category: 'publishing_option',
    description: 'Lists the privacy levels the connected account may publish with right now.',
    inputFields: [],
    outputKind: 'privacy_option',
  },
  communitySearch: {
    label: 'Community search',
    category: 'composer_lookup',
    description: 'Finds communities a post can be shared to, by name.',
    inputFields: [query],
    outputKind: 'community',
  },
};

const PLUG_TEXT: Record<
  ProviderPlugName,
  {
    label: string;
    phase: 'post_publish' | 'threading';
    description: string;
    settingRules: ProviderSettingRule[];
  }
> = {
  firstComment: {
    label: 'First comment',
    phase: 'post_publish',
    description: 'Posts a comment under the published post (for example a product link), optionally after a delay.',
    settingRules: [
      {
        field: 'content',
        label: 'Comment text',
        valueType: 'string',
        required: true,
      },
      {
        field: 'delayMs',
        label: 'Delay after publishing (ms, 0-86400000)',
        valueType: 'number',
        required: false,
      },
    ],
  },
  reply: {
    label: 'Reply',
    phase: 'threading',
    description: 'Replies to a comment or continues a thread under a published post.',
    settingRules: [
      {
        field: 'text',
        label: 'Reply text',
        valueType: 'string',
        required: true,
      },
      {
        field: 'replyToCommentId',
        label: 'Comment to reply to (default: the post)',
        valueType: 'string',
        required: false,
      },
    ],
  },
};

export function capabilitiesResponse(providers: SocialProvider[]) {
  const capabilities = providers.map((p) => p.capability);
  const tools = (Object.keys(TOOL_TEXT) as ProviderToolName[])
    .map((name) => ({
      name,
      ...TOOL_TEXT[name],
      platforms: capabilities.filter((c) => c.toolNames.includes(name)).map((c) => c.platform),
    }))
    .filter((t) => t.platforms.length > 0);
  const plugs = (Object.keys(PLUG_TEXT) as ProviderPlugName[])
    .map((name) => ({
      name,
      ...PLUG_TEXT[name],
      platforms: capabilities.filter((c) => c.plugNames.includes(name)).map((c) => c.platform),
    }))
    .filter((p) => p.platforms.length > 0);
  return { providers: capabilities, tools, plugs };
}
