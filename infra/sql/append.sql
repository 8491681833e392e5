-- One append, one statement (schema version 7): `SenkiRecorder` calls this per-shard function
-- once per append, so the shard's write lock is taken, used and released (at the implicit
-- COMMIT of the one statement) while the server works, never across a network round trip.
-- Placeholders: {schema}, {events}, {write_lock}, {idempotency}, {append_fn}, {app_role}.
--
-- SECURITY INVOKER (the default, stated): the function runs with the service role's own
-- rights (INSERT on events and idempotency, UPDATE on the write-lock sidecar, the sequence),
-- so it grants nothing that role could not already do statement by statement; a DEFINER
-- function would lend it the owner's rights, and every bug in it would become an escalation.
-- The search_path is fixed anyway (every name is qualified), so a caller's objects named like
-- built-ins cannot change what it does. The chain_link trigger still computes every link.
CREATE OR REPLACE FUNCTION {schema}.{append_fn}(
    stream_ids uuid[],
    versions bigint[],
    topics text[],
    states bytea[],
    key text,
    fingerprint text,
    response jsonb,
    channel text,
    payload text,
    lock_timeout text
) RETURNS bigint[]
LANGUAGE plpgsql SECURITY INVOKER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
    positions bigint[];
BEGIN
    -- The idempotency row first, before the lock: a repeated request is refused by its key
    -- (unique_violation on idempotency_N_pkey) without queueing for the shard.
    IF key IS NOT NULL THEN
        INSERT INTO {schema}.{idempotency} (key, fingerprint, response)
        VALUES (key, fingerprint, response);
    END IF;
    IF cardinality(stream_ids) IS NULL OR cardinality(stream_ids) = 0 THEN
        RETURN '{{}}'::bigint[];
    END IF;
    PERFORM set_config('lock_timeout', lock_timeout, true);
    -- Held to the end of the transaction: positions must commit in the order they are taken,
    -- or a reader following the log could skip an event that commits later at a lower one.
    LOCK TABLE {schema}.{write_lock} IN EXCLUSIVE MODE;
    PERFORM pg_notify(channel, payload);
    WITH inserted AS (
        INSERT INTO {schema}.{events} (originator_id, originator_version, topic, state)
        SELECT * FROM unnest(stream_ids, versions, topics, states)
        RETURNING notification_id
    )
    SELECT array_agg(notification_id ORDER BY notification_id) INTO positions FROM inserted;
    RETURN positions;
END
$fn$;

REVOKE ALL ON FUNCTION {schema}.{append_fn}(
    uuid[], bigint[], text[], bytea[], text, text, jsonb, text, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION {schema}.{append_fn}(
    uuid[], bigint[], text[], bytea[], text, text, jsonb, text, text, text) TO {app_role};
