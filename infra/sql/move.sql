-- Schema 9: moving a campaign from one shard to another (infra/store/move.py). Per shard;
-- placeholders: {schema}, {events}, {write_lock}, {idempotency}, {append_fn}, {app_role},
-- {moved}, {copies}. Idempotent: every statement can run again. Runs after append.sql and
-- replaces its function with the same one plus the fence check.

-- The fence on the source shard: a stream listed here was moved away, and this shard refuses
-- every append to it from then on (SQLSTATE SKMOV). Written in a transaction that holds the
-- shard's write lock, so no append to the stream is in flight when it commits. Never changed
-- or removed: the stream's rows stay here (the chain needs them) but belong to `to_shard` now.
CREATE TABLE IF NOT EXISTS {schema}.{moved} (
    stream_id uuid PRIMARY KEY,
    to_shard integer NOT NULL CHECK (to_shard >= 0),
    upto_version bigint NOT NULL,
    fence_position bigint NOT NULL,
    moved_at timestamptz NOT NULL DEFAULT now()
);
DROP TRIGGER IF EXISTS append_only_rows ON {schema}.{moved};
CREATE TRIGGER append_only_rows BEFORE UPDATE OR DELETE ON {schema}.{moved}
    FOR EACH ROW EXECUTE FUNCTION {schema}.refuse_change();

-- On the target shard: the streams whose first events here are copies of another shard's
-- (`from_shard`). Versions up to `upto_version` are copies, and the projector skips them (it
-- already projected the originals); NULL while the move still copies: then every event of the
-- stream here is a copy, as nothing else may write it before its placement switches.
CREATE TABLE IF NOT EXISTS {schema}.{copies} (
    stream_id uuid PRIMARY KEY,
    from_shard integer NOT NULL CHECK (from_shard >= 0),
    upto_version bigint,
    -- The source's head when it was fenced: this stream's later events here are projected
    -- only once the read models have passed it on `from_shard` (version order, always).
    fence_position bigint,
    started_at timestamptz NOT NULL DEFAULT now()
);

REVOKE ALL ON {schema}.{moved}, {schema}.{copies} FROM PUBLIC;
GRANT SELECT, INSERT ON {schema}.{moved} TO {app_role};
-- UPDATE only sets `upto_version` once the source is fenced (bookkeeping, not history).
GRANT SELECT, INSERT, UPDATE ON {schema}.{copies} TO {app_role};

-- The schema-7 append function (append.sql) with one more check, after the write lock: an
-- append that names a moved stream is refused, so every process is fenced, whatever its
-- cached placement says. An index probe on a small table per append, under the lock.
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
    IF key IS NOT NULL THEN
        INSERT INTO {schema}.{idempotency} (key, fingerprint, response)
        VALUES (key, fingerprint, response);
    END IF;
    IF cardinality(stream_ids) IS NULL OR cardinality(stream_ids) = 0 THEN
        RETURN '{{}}'::bigint[];
    END IF;
    PERFORM set_config('lock_timeout', lock_timeout, true);
    LOCK TABLE {schema}.{write_lock} IN EXCLUSIVE MODE;
    -- After the lock: a fence committed while this append queued is seen by this statement.
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
