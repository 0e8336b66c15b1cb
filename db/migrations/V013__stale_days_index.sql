-- Days marked stale (an edit or delete touched them) are found by the worker's sweep however
-- old they are, so deleted words leave a day's summary even after the day left the window the
-- sweep reads messages in. Few rows are stale at a time: a partial index keeps that lookup off
-- the whole table.
CREATE INDEX summary_days_stale ON summary_days (day) WHERE stale;
