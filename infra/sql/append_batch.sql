-- Group commit (schema version 10): several appends in one transaction, so they share one
-- write lock, one NOTIFY and one WAL flush at COMMIT. `SenkiRecorder` sends here the appends
-- that queued in one process while another append of its shard was in flight (at most 32);
-- an append alone still goes through append.sql's function. Placeholders: {schema}, {events},
-- {write_lock}, {idempotency}, {append_batch_fn}, {app_role}, {moved} (move.sql, which runs
-- before this file).
--
-- The events come flattened, as for one append, with `requests` saying which append (1..n)
-- each belongs to; `keys`, `fingerprints`, `responses` are per append (a NULL key: none).
-- Each append runs in a subtransaction of its own (the BEGIN … EXCEPTION block), in order, so
-- a refused one changes nothing and the others go on; a later append sees the earlier ones'
-- rows, so two appends of the same stream and version are refused as two transactions would
-- be. Every refusal is caught and returned as its SQLSTATE, message, detail, hint and
-- constraint name (the unique key that refused it), for the recorder to raise in that
-- append's own thread as the error the single function would have raised. 32 appends stay
-- well inside a backend's cache of 64 subtransaction ids.
--
-- The rights and search_path are append.sql's, for the same reasons.
CREATE OR REPLACE FUNCTION {schema}.{append_batch_fn}(
    stream_ids uuid[],
    versions bigint[],
    topics text[],
    states bytea[],
    requests integer[],
    keys text[],
    fingerprints text[],
    responses jsonb[],
    channel text,
    payload text,
    lock_timeout text
) RETURNS TABLE (
    positions bigint[],
    refused text,
    message text,
    detail text,
    hint text,
    constraint_name text
)
LANGUAGE plpgsql SECURITY INVOKER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
    fenced boolean := false;
    appended boolean := false;
    gone uuid;
    gone_to integer;
BEGIN
    PERFORM set_config('lock_timeout', lock_timeout, true);
    IF coalesce(cardinality(stream_ids), 0) > 0 THEN
        -- As in append.sql: held to COMMIT, so positions commit in the order they are taken.
        LOCK TABLE {schema}.{write_lock} IN EXCLUSIVE MODE;
        -- The move fence, probed once for the whole batch; only when it names one of the
        -- streams does each append look for its own (the refusal is that append's alone).
        fenced := EXISTS (
            SELECT 1 FROM {schema}.{moved} m WHERE m.stream_id = ANY(stream_ids));
    END IF;
    FOR r IN 1 .. coalesce(cardinality(keys), 0) LOOP
        positions := NULL;
        refused := NULL;
        message := NULL;
        detail := NULL;
        hint := NULL;
        constraint_name := NULL;
        BEGIN
            -- The idempotency row first, as append.sql inserts it: a repeated key is refused
            -- by its unique key even when a stream of the append was moved.
            IF keys[r] IS NOT NULL THEN
                INSERT INTO {schema}.{idempotency} (key, fingerprint, response)
                VALUES (keys[r], fingerprints[r], responses[r]);
            END IF;
            IF fenced THEN
                SELECT m.stream_id, m.to_shard INTO gone, gone_to
                  FROM {schema}.{moved} m
                 WHERE m.stream_id = ANY(ARRAY(
                       SELECT u.stream_id
                         FROM unnest(stream_ids, requests) u(stream_id, of_request)
                        WHERE u.of_request = r))
                 LIMIT 1;
                IF gone IS NOT NULL THEN
                    RAISE EXCEPTION 'senki: stream % was moved to shard %', gone, gone_to
                        USING ERRCODE = 'SKMOV',
                              DETAIL = gone::text || ':' || gone_to::text,
                              HINT = 'Read the placement directory again and write on the new shard.';
                END IF;
            END IF;
            WITH inserted AS (
                INSERT INTO {schema}.{events} (originator_id, originator_version, topic, state)
                SELECT u.stream_id, u.version, u.topic, u.state
                  FROM unnest(stream_ids, versions, topics, states, requests)
                       AS u(stream_id, version, topic, state, of_request)
                 WHERE u.of_request = r
                RETURNING notification_id
            )
            SELECT array_agg(i.notification_id ORDER BY i.notification_id) INTO positions
              FROM inserted i;
            appended := appended OR positions IS NOT NULL;
        EXCEPTION WHEN OTHERS THEN
            -- Whatever refused this append (a taken key, the fence, the chain's order check)
            -- was rolled back to the block's start; the next append goes on.
            GET STACKED DIAGNOSTICS refused = RETURNED_SQLSTATE, message = MESSAGE_TEXT,
                detail = PG_EXCEPTION_DETAIL, hint = PG_EXCEPTION_HINT,
                constraint_name = CONSTRAINT_NAME;
            positions := NULL;
        END;
        RETURN NEXT;
    END LOOP;
    -- One NOTIFY for the batch (the recorder's payload names every stream of it), sent at
    -- COMMIT like the single function's; none when nothing was appended.
    IF appended THEN
        PERFORM pg_notify(channel, payload);
    END IF;
END
$fn$;

REVOKE ALL ON FUNCTION {schema}.{append_batch_fn}(
    uuid[], bigint[], text[], bytea[], integer[], text[], text[], jsonb[], text, text, text)
    FROM PUBLIC;
GRANT EXECUTE ON FUNCTION {schema}.{append_batch_fn}(
    uuid[], bigint[], text[], bytea[], integer[], text[], text[], jsonb[], text, text, text)
    TO {app_role};
