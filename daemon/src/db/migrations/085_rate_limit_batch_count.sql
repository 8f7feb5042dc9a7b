-- How many requests the latest counting statement admitted for the user. The guard counts the
-- concurrent requests of a daemon in one statement (limits/key-counter.ts); RETURNING sees only
-- the new row, so this is how each request learns its position: the statement admitted the first
-- `last_admitted` of the user's requests, and the counts before it were the returned ones minus
-- that. The single-request statements leave it alone (`admitted` says what they need).
alter table rate_limit_counters add column last_admitted integer not null default 0;
