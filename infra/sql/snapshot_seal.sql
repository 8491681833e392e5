-- Schema 6: sealed snapshots (infra/store/snapshot_seal.py). Per shard; placeholders:
-- {schema}, {snapshots}, {sealed}. Idempotent.
--
-- A snapshot records the log position and chain hash of the event it was taken at, and a MAC
-- under a key the database never holds. Rows written before schema 6 keep NULLs here and are
-- ignored by every load (the aggregate is rebuilt from its events, then snapshotted anew).
ALTER TABLE {schema}.{snapshots} ADD COLUMN IF NOT EXISTS chain_position bigint;
ALTER TABLE {schema}.{snapshots} ADD COLUMN IF NOT EXISTS chain_hash bytea;
ALTER TABLE {schema}.{snapshots} ADD COLUMN IF NOT EXISTS mac bytea;

-- NOT VALID: old rows stay (unsealed, ignored); every new row must carry a whole seal, so the
-- service role cannot even insert an unsealed one. Whether a seal *holds* only the key can say.
DO $do$
BEGIN
    IF NOT EXISTS (
        SELECT 1 FROM pg_constraint
         WHERE conname = {sealed_name} AND conrelid = {snapshots_regclass}::regclass
    ) THEN
        ALTER TABLE {schema}.{snapshots} ADD CONSTRAINT {sealed} CHECK (
            chain_position IS NOT NULL AND chain_hash IS NOT NULL AND mac IS NOT NULL
        ) NOT VALID;
    END IF;
END
$do$;
