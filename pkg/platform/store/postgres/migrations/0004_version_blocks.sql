-- Versions in blocks of 1000: a replica's block lasted 100 writes, and
-- taking the next one is a round trip in the middle of a group commit
-- (once per ~3 batches at 13k writes/s; bench/platform). A replica of an
-- older release still uses the first 100 versions of each block it
-- takes, which stays correct.
ALTER SEQUENCE versions INCREMENT BY 1000;
