-- The placement directory, on the home database only (docs/scaling.md). Placeholders:
-- {schema}, {app_role}; needs common.sql first (refuse_change).

-- The shard of each stream (infra/store/placement.py). Written once when a stream is created
-- with more than one shard; never updated, so the service role may only read and insert.
CREATE TABLE IF NOT EXISTS {schema}.placements (
    stream_id uuid PRIMARY KEY,
    shard integer NOT NULL CHECK (shard >= 0),
    campaign_id uuid,
    placed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS placements_campaign ON {schema}.placements (campaign_id);
DROP TRIGGER IF EXISTS append_only_rows ON {schema}.placements;
CREATE TRIGGER append_only_rows BEFORE UPDATE OR DELETE ON {schema}.placements
    FOR EACH ROW EXECUTE FUNCTION {schema}.refuse_change();
REVOKE ALL ON {schema}.placements FROM PUBLIC;
GRANT SELECT, INSERT ON {schema}.placements TO {app_role};
