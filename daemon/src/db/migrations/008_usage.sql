-- Rate-limit counters, the request log with its daily rollups, billing plans, quotas and invoices.

-- One row per user holding the three fixed windows (minute, UTC day, UTC month), updated by a
-- single upsert per request. UNLOGGED: no WAL on the hot path; a PostgreSQL crash (not a clean
-- restart) empties it, which only ends the current windows early. Billing never reads it. The
-- low fillfactor leaves room on each page for HOT updates (the primary key is never changed).
create unlogged table rate_limit_counters (
  user_id uuid primary key,
  minute_start timestamptz not null,
  minute_count integer not null,
  day_start timestamptz not null,
  day_count integer not null,
  month_start timestamptz not null,
  month_count integer not null,
  -- Whether the latest request was let through: RETURNING sees only the new row.
  admitted boolean not null
) with (fillfactor = 50, autovacuum_vacuum_scale_factor = 0.02);

-- Raw request log, written in batches off the request path. No foreign keys: keys and users are
-- never deleted, and the checks would slow the batch insert for nothing.
create table request_log (
  id bigint generated always as identity primary key,
  ts timestamptz not null,
  organization_id uuid not null,
  user_id uuid not null,
  key_id uuid not null,
  method text not null,
  endpoint text not null,
  status smallint not null,
  duration_us integer not null,
  query text,
  result_count integer,
  -- A search that was admitted by the plan quota and completed: what invoices charge for.
  billable boolean not null default false
);
create index request_log_org_idx on request_log (organization_id, ts desc, id desc);
create index request_log_user_idx on request_log (user_id, ts desc, id desc);
create index request_log_key_idx on request_log (key_id, ts desc, id desc);
-- Retention deletes by age; rows arrive in time order, so a BRIN index is enough and costs little.
create index request_log_ts_brin on request_log using brin (ts);

-- Per key and UTC day, maintained in the same statement that inserts the raw rows, so the two
-- never disagree. Kept forever: dashboards and invoices read only this table.
create table usage_daily (
  key_id uuid not null,
  day date not null,
  organization_id uuid not null,
  user_id uuid not null,
  requests integer not null,
  errors integer not null,
  total_duration_us bigint not null,
  searches integer not null,
  billable_searches integer not null,
  primary key (key_id, day)
);
create index usage_daily_org_idx on usage_daily (organization_id, day);
create index usage_daily_user_idx on usage_daily (user_id, day);

-- Billing plan of an organization. A null anchor means created_at: cycles start on the anchor's
-- day of the month at 00:00 UTC.
alter table organizations
  add column plan text not null default 'free' check (plan in ('free', 'starter', 'pro')),
  add column billing_cycle_anchor timestamptz,
  add column stripe_customer_id text;

-- Every plan change, so a cycle is invoiced at the plan in force when it ended, however late the
-- closing job runs.
create table organization_plan_changes (
  id bigint generated always as identity primary key,
  organization_id uuid not null references organizations (id),
  from_plan text not null,
  to_plan text not null,
  effective_at timestamptz not null
);
create index organization_plan_changes_org_idx on organization_plan_changes (organization_id, effective_at);

-- Searches admitted in a billing cycle: the live counter behind the Free plan's hard quota.
-- UNLOGGED like the rate-limit counters (a logged write would cost an fsync per search); it is
-- only an enforcement cache: invoices read the request log, and a missing row is re-seeded from
-- the daily rollups, so after a PostgreSQL crash the quota resumes from the logged usage.
create unlogged table search_quota_usage (
  organization_id uuid not null,
  cycle_start timestamptz not null,
  searches integer not null,
  primary key (organization_id, cycle_start)
) with (fillfactor = 70);

create table invoices (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id),
  period_start timestamptz not null,
  period_end timestamptz not null,
  plan text not null,
  currency text not null default 'usd',
  plan_fee_cents bigint not null,
  included_queries bigint not null,
  used_queries bigint not null,
  overage_queries bigint not null,
  -- 1 millicent = 1/1000 cent; $0.002 per query is 200.
  overage_rate_millicents integer,
  overage_cents bigint not null,
  total_cents bigint not null,
  status text not null default 'pending' check (status in ('pending', 'recorded', 'sent', 'failed')),
  processor text not null default 'local' check (processor in ('local', 'stripe')),
  external_id text,
  attempts integer not null default 0,
  last_error text,
  created_at timestamptz not null default now(),
  sent_at timestamptz,
  -- One invoice per organization and cycle: closing the same cycle twice is a no-op.
  unique (organization_id, period_start)
);
create index invoices_pending_idx on invoices (created_at) where status in ('pending', 'failed');
