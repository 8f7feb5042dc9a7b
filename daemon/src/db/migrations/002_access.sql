-- Collections, public subscriptions and per-key collection grants.
create table collections (
  id uuid primary key default gen_random_uuid(),
  owner_id uuid not null references users (id),
  organization_id uuid not null references organizations (id),
  name text not null check (length(name) between 1 and 200),
  -- Globally unique and never reused, even after soft delete, so an old grant or link can't
  -- silently point at a newer collection with the same name.
  slug text not null,
  description text not null default '',
  is_public boolean not null default false,
  deleted_at timestamptz,
  blobs_purged_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index collections_slug_key on collections (slug);
create index collections_owner_idx on collections (owner_id, created_at) where deleted_at is null;

create table subscriptions (
  user_id uuid not null references users (id),
  collection_id uuid not null references collections (id),
  created_at timestamptz not null default now(),
  primary key (user_id, collection_id)
);
create index subscriptions_collection_idx on subscriptions (collection_id);

create table key_grants (
  key_id uuid not null references api_keys (id),
  collection_id uuid not null references collections (id),
  permission text not null default 'read' check (permission in ('read', 'write')),
  created_at timestamptz not null default now(),
  primary key (key_id, collection_id)
);
create index key_grants_collection_idx on key_grants (collection_id);
