-- Event payloads are stored as written and only ever read whole (webhooks/delivery.ts sends them
-- back byte for byte): `json` keeps the text, `jsonb` adds a binary header per key (about 54 bytes
-- of a 536-byte document.indexed payload, ~50 B per SciFact chunk). Keys keep the order they were
-- written in; `->` and `->>` work on both.
alter table events alter column payload type json using payload::json;
