-- Web UI sign-in: user passwords, server-side sessions, one-time invites and the sign-in throttle.

-- Format: scrypt$<log2 N>$<r>$<p>$<salt b64url>$<hash b64url>, so the cost can be raised later
-- and old hashes still verify. Null: the user has no password yet (API keys only, or invited).
alter table users
  add column password_hash text,
  add column password_changed_at timestamptz;

-- Only the SHA-256 of the cookie value is stored: a leaked table cannot be replayed as cookies.
create table sessions (
  id_hash bytea primary key,
  user_id uuid not null references users (id) on delete cascade,
  -- Synchronizer CSRF token of this session, embedded in every form it renders.
  csrf_token text not null,
  created_at timestamptz not null,
  last_seen_at timestamptz not null,
  -- Absolute end; idle expiry is last_seen_at + the idle timeout (checked in code).
  expires_at timestamptz not null,
  ip text not null default '',
  user_agent text not null default ''
);
create index sessions_user_idx on sessions (user_id);
create index sessions_expires_idx on sessions (expires_at);

-- One-time links printed by `admin invite`: the user sets a password through them.
create table user_invites (
  token_hash bytea primary key,
  user_id uuid not null references users (id) on delete cascade,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  used_at timestamptz
);
create index user_invites_user_idx on user_invites (user_id);

-- Failed sign-ins in the recent window, per normalized email and client address.
create table sign_in_failures (
  id bigint generated always as identity primary key,
  email text not null,
  ip text not null,
  at timestamptz not null
);
create index sign_in_failures_email_ip_idx on sign_in_failures (email, ip, at);
create index sign_in_failures_ip_idx on sign_in_failures (ip, at);
