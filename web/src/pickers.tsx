/** The brand and channel pickers several pages share. */
import type { Brand, ChannelAccount } from './client';
import { PlatformIcon, platformName } from './platforms';

/** A "Brand" select over the organization's brands; `emptyLabel` adds a first option with no brand. */
export function BrandPicker({
  brands,
  value,
  onChange,
  emptyLabel,
}: {
  brands: Brand[] | undefined;
  value: string;
  onChange: (brandId: string) => void;
  emptyLabel?: string;
}) {
  return (
    <label>
      Brand
      <select aria-label="Brand" value={value} onChange={(e) => onChange(e.target.value)}>
        {emptyLabel !== undefined && <option value="">{emptyLabel}</option>}
        {brands?.map((b) => (
          <option key={b.brandId} value={b.brandId}>
            {b.name}
          </option>
        ))}
      </select>
    </label>
  );
}

/** One checkbox per channel account, named "display name (platform)"; `empty` is said when there is none. */
export function ChannelPicker({
  legend,
  channels,
  selected,
  onChange,
  empty,
}: {
  legend: string;
  channels: ChannelAccount[];
  selected: string[];
  onChange: (channelAccountIds: string[]) => void;
  empty?: string;
}) {
  return (
    <fieldset>
      <legend>{legend}</legend>
      {empty !== undefined && channels.length === 0 && <p className="muted">{empty}</p>}
      {channels.map((c) => (
        <label key={c.channelAccountId} className="check">
          <input
            type="checkbox"
            checked={selected.includes(c.channelAccountId)}
            onChange={(e) =>
              onChange(e.target.checked ? [...selected, c.channelAccountId] : selected.filter((x) => x !== c.channelAccountId))
            }
          />
          <PlatformIcon platform={c.platform} />
          {c.displayName} ({platformName(c.platform)})
        </label>
      ))}
    </fieldset>
  );
}
