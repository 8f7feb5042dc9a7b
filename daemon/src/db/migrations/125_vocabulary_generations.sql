-- A collection's vocabulary generation (search/correction-cache.ts): the number of chunk-writing
-- statements that ever touched its text index. Each such statement appends exactly one
-- collection_text_stats_delta row per collection it touched (text_index_add, text_index_remove);
-- deleting delta rows (the fold, rebuild_text_index) adds their count here in the same transaction.
-- So `folded + count(delta rows)` grows with every committed change of the collection's lists and
-- never repeats: a daemon may keep what it learnt of the lists under it (search/correction-cache.ts).
create table collection_vocabulary (
  collection_id uuid primary key,
  folded bigint not null
);

create function collection_vocabulary_fold() returns trigger
  language plpgsql
as $$
begin
  insert into collection_vocabulary as v (collection_id, folded)
  select collection_id, count(*) from folded_deltas group by collection_id
  on conflict (collection_id) do update set folded = v.folded + excluded.folded;
  return null;
end $$;

create trigger collection_vocabulary_fold after delete on collection_text_stats_delta
  referencing old table as folded_deltas
  for each statement execute function collection_vocabulary_fold();
