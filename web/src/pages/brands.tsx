/** Brands and their products. */
import { type FormEvent, useState } from 'react';
import { client, ok } from '../client';
import { Alert, message, useLoad } from '../ui';
import { loadBrands } from './loaders';

export function BrandsPage() {
  const [brands, error, reload] = useLoad(loadBrands, []);
  const [name, setName] = useState('');
  const [formError, setFormError] = useState<string | null>(null);
  const create = async (e: FormEvent) => {
    e.preventDefault();
    try {
      await ok(client.POST('/v1/brands' as never, { body: { name } } as never));
      setName('');
      reload();
    } catch (err) {
      setFormError(message(err));
    }
  };
  return (
    <section>
      <h1>Brands</h1>
      <Alert text={error} />
      <ul className="list">
        {brands?.map((b) => (
          <li key={b.brandId}>
            <strong>{b.name}</strong> <span className="muted">{b.slug} · {b.timezone}</span>
            {b.products && b.products.length > 0 && <div className="muted">Products: {b.products.map((p) => p.name).join(', ')}</div>}
          </li>
        ))}
        {brands?.length === 0 && <li className="muted">No brands yet.</li>}
      </ul>
      <form onSubmit={create} className="inline" aria-label="new brand">
        <label>
          New brand
          <input value={name} onChange={(e) => setName(e.target.value)} required />
        </label>
        <button type="submit">Create brand</button>
      </form>
      <Alert text={formError} />
    </section>
  );
}
