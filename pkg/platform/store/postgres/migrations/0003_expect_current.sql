-- botkit_expect_current fails the statement, and with it the transaction,
-- when ok is false. A replica's optimistic group commit (store/postgres
-- cache.go) calls it on the number of objects still at the versions it
-- read from its cache, before any of its writes: one stale object and
-- nothing of the transaction is written.
CREATE FUNCTION botkit_expect_current(ok boolean) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
	IF NOT ok THEN
		RAISE EXCEPTION 'an object changed since this replica read it' USING ERRCODE = 'BK409';
	END IF;
	RETURN true;
END
$$;
