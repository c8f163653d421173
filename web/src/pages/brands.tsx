/**
 * Brands and their products: create (workspace.brands.create) and edit (workspace.brands.initialize),
 * with the brand's time zone chosen from the list the browser knows (IANA names). People whose role
 * cannot change them see the list only.
 */
import { type FormEvent, useState } from 'react';
import { type Brand, client, ok, type Schemas } from '../client';
import { useCan } from '../session';
import { Alert, Empty, Loading, message, useLoad } from '../ui';
import { loadBrands } from './loaders';

type Product = Schemas['BrandProduct'];

const ZONES: string[] = (() => {
  try {
    const zones = Intl.supportedValuesOf('timeZone');
    return zones.includes('UTC') ? zones : ['UTC', ...zones];
  } catch {
    return ['UTC'];
  }
})();
const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

export function TimeZoneSelect({ value, onChange, label = 'Time zone' }: { value: string; onChange: (z: string) => void; label?: string }) {
  return (
    <label>
      {label}
      <select aria-label={label} value={value} onChange={(e) => onChange(e.target.value)}>
        {(ZONES.includes(value) ? ZONES : [value, ...ZONES]).map((z) => (
          <option key={z} value={z}>
            {z.replaceAll('_', ' ')}
          </option>
        ))}
      </select>
    </label>
  );
}

function ProductForm({
  brandId,
  product,
  onSaved,
  onCancel,
}: {
  brandId: string;
  product?: Product;
  onSaved: (p: Product) => void;
  onCancel?: () => void;
}) {
  const [name, setName] = useState(product?.name ?? '');
  const [url, setUrl] = useState(product?.productUrl ?? '');
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      const saved = product
        ? await ok(
            client.PATCH('/v1/brands/{brandId}/products/{productId}', {
              params: { path: { brandId, productId: product.productId } },
              body: { name, productUrl: url || null },
            }),
          )
        : await ok(
            client.POST('/v1/brands/{brandId}/products', { params: { path: { brandId } }, body: { name, productUrl: url || null } }),
          );
      if (!product) {
        setName('');
        setUrl('');
      }
      onSaved(saved);
    } catch (err) {
      setError(message(err));
    }
  };
  return (
    <form onSubmit={submit} className="inline" aria-label={product ? `edit product ${product.name}` : 'new product'}>
      <label>
        {product ? 'Product name' : 'New product'}
        <input value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} />
      </label>
      <label>
        Product link
        <input type="url" value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://shop.example/product" />
      </label>
      <button type="submit">{product ? 'Save product' : 'Add product'}</button>
      {onCancel && (
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      )}
      <Alert text={error} />
    </form>
  );
}

function BrandCard({ brand, canEdit, onChanged }: { brand: Brand; canEdit: boolean; onChanged: (note: string) => void }) {
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(brand.name);
  const [zone, setZone] = useState(brand.timezone);
  const [editingProduct, setEditingProduct] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const save = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      await ok(client.PATCH('/v1/brands/{brandId}', { params: { path: { brandId: brand.brandId } }, body: { name, timezone: zone } }));
      setEditing(false);
      onChanged(`Saved ${name}.`);
    } catch (err) {
      setError(message(err));
    }
  };
  return (
    <li className="brand-card" data-brand={brand.brandId}>
      {editing ? (
        <form onSubmit={save} className="inline" aria-label={`edit brand ${brand.name}`}>
          <label>
            Brand name
            <input value={name} onChange={(e) => setName(e.target.value)} required maxLength={120} />
          </label>
          <TimeZoneSelect value={zone} onChange={setZone} />
          <button type="submit">Save brand</button>
          <button type="button" className="secondary" onClick={() => setEditing(false)}>
            Cancel
          </button>
          <Alert text={error} />
        </form>
      ) : (
        <div className="brand-head">
          <h2>{brand.name}</h2>
          <span className="muted">Time zone: {brand.timezone.replaceAll('_', ' ')}</span>
          {canEdit && (
            <button type="button" className="secondary" onClick={() => setEditing(true)}>
              Edit brand
            </button>
          )}
        </div>
      )}
      <h3 className="sub">Products</h3>
      {(brand.products ?? []).length === 0 && <p className="muted">No products yet. Products are what batches post about.</p>}
      <ul className="products">
        {brand.products?.map((p) =>
          editingProduct === p.productId ? (
            <li key={p.productId}>
              <ProductForm
                brandId={brand.brandId}
                product={p}
                onSaved={(saved) => {
                  setEditingProduct(null);
                  onChanged(`Saved ${saved.name}.`);
                }}
                onCancel={() => setEditingProduct(null)}
              />
            </li>
          ) : (
            <li key={p.productId}>
              <span>
                <strong>{p.name}</strong>
                {p.productUrl && (
                  <>
                    {' · '}
                    <a href={p.productUrl} target="_blank" rel="noreferrer" className="break">
                      {p.productUrl}
                    </a>
                  </>
                )}
              </span>
              {canEdit && (
                <button
                  type="button"
                  className="secondary small"
                  onClick={() => setEditingProduct(p.productId)}
                  aria-label={`Edit ${p.name}`}
                >
                  Edit
                </button>
              )}
            </li>
          ),
        )}
      </ul>
      {canEdit && <ProductForm brandId={brand.brandId} onSaved={(p) => onChanged(`Added ${p.name}.`)} />}
    </li>
  );
}

export function BrandsPage() {
  const can = useCan();
  const [brands, error, reload] = useLoad(loadBrands, []);
  const [name, setName] = useState('');
  const [zone, setZone] = useState(browserZone);
  const [note, setNote] = useState<string | null>(null);
  const [formError, setFormError] = useState<string | null>(null);
  const changed = (n: string) => {
    setNote(n);
    reload();
  };
  const create = async (e: FormEvent) => {
    e.preventDefault();
    setFormError(null);
    try {
      const b = await ok(client.POST('/v1/brands', { body: { name, timezone: zone } }));
      setName('');
      changed(`Created ${b.name}.`);
    } catch (err) {
      setFormError(message(err));
    }
  };
  return (
    <section>
      <h1>Brands</h1>
      {note && <p role="status">{note}</p>}
      <Alert text={error} />
      {!brands && !error && <Loading what="Loading brands" />}
      {brands?.length === 0 && (
        <Empty title="No brands yet.">
          {can('workspace.brands.create')
            ? 'Create your first brand below: it groups channels, products and posts.'
            : 'Ask an admin to create one.'}
        </Empty>
      )}
      <ul className="list">
        {brands?.map((b) => (
          <BrandCard key={`${b.brandId}${b.updatedAt}`} brand={b} canEdit={can('workspace.brands.initialize')} onChanged={changed} />
        ))}
      </ul>
      {can('workspace.brands.create') && (
        <form onSubmit={create} className="inline panel" aria-label="new brand">
          <label>
            New brand
            <input value={name} onChange={(e) => setName(e.target.value)} required maxLength={120} />
          </label>
          <TimeZoneSelect value={zone} onChange={setZone} />
          <button type="submit">Create brand</button>
          <Alert text={formError} />
        </form>
      )}
    </section>
  );
}
