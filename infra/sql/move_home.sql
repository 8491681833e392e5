-- Schema 9 on the home database: where a moved stream lives now (infra/store/move.py).
-- Placeholders: {schema}, {app_role}. Idempotent.
--
-- `senki.placements` records each stream's first shard once and is never changed; a move
-- appends a row here instead, and the newest row of a stream (highest `seq`) wins over its
-- placement (infra/store/placement.py reads both in one statement). Insert-only, like the
-- directory, so the service role can move a campaign but not rewrite where anything was.
CREATE TABLE IF NOT EXISTS {schema}.relocations (
    seq bigserial PRIMARY KEY,
    stream_id uuid NOT NULL,
    campaign_id uuid,
    from_shard integer NOT NULL CHECK (from_shard >= 0),
    shard integer NOT NULL CHECK (shard >= 0),
    moved_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS relocations_stream ON {schema}.relocations (stream_id, seq DESC);
DROP TRIGGER IF EXISTS append_only_rows ON {schema}.relocations;
CREATE TRIGGER append_only_rows BEFORE UPDATE OR DELETE ON {schema}.relocations
    FOR EACH ROW EXECUTE FUNCTION {schema}.refuse_change();
REVOKE ALL ON {schema}.relocations FROM PUBLIC;
GRANT SELECT, INSERT ON {schema}.relocations TO {app_role};
GRANT USAGE ON SEQUENCE {schema}.relocations_seq_seq TO {app_role};
