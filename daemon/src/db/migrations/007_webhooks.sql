-- One webhook per organization, and a log of every delivery attempt made to it.
create table webhooks (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null unique references organizations (id),
  url text not null,
  -- Kept in plaintext: signing needs the secret itself, not a hash of it.
  secret text not null,
  is_active boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

-- Attempts survive the webhook (no foreign key to it): the log stays readable after DELETE, and a
-- job finishing an attempt just as the webhook is deleted can still record what it did.
create table webhook_deliveries (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id),
  webhook_id uuid not null,
  event_id uuid not null references events (id) on delete cascade,
  event_type text not null,
  attempt integer not null check (attempt >= 1),
  trigger text not null check (trigger in ('automatic', 'manual', 'test')),
  url text not null,
  status_code integer,
  success boolean not null,
  duration_ms integer not null,
  error text,
  next_retry_at timestamptz,
  created_at timestamptz not null default now()
);
create index webhook_deliveries_org_idx on webhook_deliveries (organization_id, created_at desc, id desc);
create index webhook_deliveries_event_idx on webhook_deliveries (event_id, attempt);
