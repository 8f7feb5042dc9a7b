-- Permits across daemons (limits/permit-leases.ts). `leased`: permits daemons reserved in blocks in
-- the current minute and have not settled yet (some may be unused); a daemon that finds no room
-- while it is above 0 asks the holders to give theirs back before it refuses. `spare`: the minute
-- counts of permits given back in the current minute, which the next requests take with their own
-- counts, so every count of the minute is admitted once. `issued`: the minute count the latest
-- statement admitted (RETURNING sees only the new row).
alter table rate_limit_counters
  add column leased integer not null default 0,
  add column spare integer[] not null default '{}',
  add column issued integer not null default 0;
