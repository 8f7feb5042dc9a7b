-- Liveness of graphile-worker workers, so jobs locked by a crashed process are released promptly
-- instead of after graphile-worker's 4-hour lock timeout.
create table worker_heartbeats (
  worker_id text primary key,
  hostname text not null,
  pid integer not null,
  started_at timestamptz not null default now(),
  last_seen timestamptz not null default now()
);
