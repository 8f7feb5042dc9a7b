-- Accounts: organizations, their users, and API keys (stored only as SHA-256 hashes).
create extension if not exists vector;

create table organizations (
  id uuid primary key default gen_random_uuid(),
  name text not null,
  created_at timestamptz not null default now()
);

create table users (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id),
  email text not null,
  name text not null default '',
  role text not null default 'member' check (role in ('owner', 'member')),
  is_active boolean not null default true,
  is_admin boolean not null default false,
  created_at timestamptz not null default now()
);
create unique index users_email_key on users (lower(email));
create index users_organization_idx on users (organization_id);

create table api_keys (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users (id),
  name text not null,
  prefix text not null,
  key_hash bytea not null,
  is_active boolean not null default true,
  is_full_access boolean not null default false,
  rate_tier text not null default 'free' check (rate_tier in ('free', 'basic', 'pro')),
  expires_in text not null default 'never' check (expires_in in ('30d', '90d', '6m', '1y', 'never')),
  expires_at timestamptz,
  last_used_at timestamptz,
  rotated_from uuid references api_keys (id),
  revoked_at timestamptz,
  created_at timestamptz not null default now()
);
create unique index api_keys_hash_key on api_keys (key_hash);
create index api_keys_user_idx on api_keys (user_id, created_at desc);

-- Key/value facts about this installation (e.g. that the first-start bootstrap ran).
create table instance_settings (
  key text primary key,
  value jsonb not null,
  updated_at timestamptz not null default now()
);
