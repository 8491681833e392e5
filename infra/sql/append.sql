-- One append, one statement (schema version 7): `SenkiRecorder` calls this per-shard function
-- once per append, so the shard's write lock is taken, used and released (at the implicit
-- COMMIT of the one statement) while the server works, never across a network round trip.
-- Placeholders: {schema}, {events}, {write_lock}, {idempotency}, {append_fn}, {app_role},
-- {moved} (the move fence of move.sql, schema 9, which runs before this file).
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
    gone uuid;
    gone_to integer;
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
    -- After the lock, the move fence (schema 9): an append naming a stream moved to another
    -- shard is refused, so every process is fenced whatever its cached placement says; a fence
    -- committed while this append queued is seen by this statement. One index probe of a
    -- small table, under the lock.
    SELECT m.stream_id, m.to_shard INTO gone, gone_to
      FROM {schema}.{moved} m WHERE m.stream_id = ANY(stream_ids) LIMIT 1;
    IF gone IS NOT NULL THEN
        RAISE EXCEPTION 'senki: stream % was moved to shard %', gone, gone_to
            USING ERRCODE = 'SKMOV', DETAIL = gone::text || ':' || gone_to::text,
                  HINT = 'Read the placement directory again and write on the new shard.';
    END IF;
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
