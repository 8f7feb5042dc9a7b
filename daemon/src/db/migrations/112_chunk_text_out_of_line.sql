-- A 512-d chunk row was about 3.9 KB (text 1.3 KB, tsvector 1.4 KB, halfvec 1 KB), so two filled a
-- page and left about 400 B of it unused. Searches read the tsvector (scoring up to 200 text
-- candidates) and the halfvec (exact scans) of many rows, but the text only of the few rows they
-- return. So the text now goes compressed into TOAST (about 1 KB), and the tsvector and the halfvec
-- stay in the row (storage main: compressed or moved out only past 8 KB, as before). Three rows
-- of SciFact's size share a page. SciFact: the chunks went from 24.2 MB to 22.3 MB (heap 16.3 MB,
-- TOAST 5.9 MB). Rows written before keep their layout until they are rewritten.
alter table chunks alter column tsv set storage main, alter column embedding set storage main;
alter table chunks set (toast_tuple_target = 2700);
