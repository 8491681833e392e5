-- Schema 9: moving a campaign from one shard to another (infra/store/move.py). Per shard;
-- placeholders: {schema}, {events}, {write_lock}, {idempotency}, {append_fn}, {app_role},
-- {moved}, {copies}. Idempotent: every statement can run again. Runs before append.sql, whose
-- function reads the fence.

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
