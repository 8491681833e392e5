-- Every checkpoint the shard's log signed and served (issue 37): kept so that each one served
-- stays provably consistent with every later one. Append-only like the events. Schema 11.

CREATE TABLE IF NOT EXISTS {schema}.{checkpoints} (
    tree_size bigint PRIMARY KEY,
    note text NOT NULL,
    signed_at timestamptz NOT NULL DEFAULT now()
);
-- Schema 12: the leaves (the events' 32-byte chain hashes, in order) the tree held from leaf
-- `leaves_from` up to `tree_size` when this checkpoint was signed. After a restart they are
-- the old tree: checked against the signed roots, then against the events, they name the
-- exact first leaf where the log now differs from what was signed (a checkpoint alone only
-- says that it differs). NULL in rows signed before schema 12.
ALTER TABLE {schema}.{checkpoints} ADD COLUMN IF NOT EXISTS leaves_from bigint;
ALTER TABLE {schema}.{checkpoints} ADD COLUMN IF NOT EXISTS leaves bytea;
DROP TRIGGER IF EXISTS append_only_rows ON {schema}.{checkpoints};
CREATE TRIGGER append_only_rows BEFORE UPDATE OR DELETE ON {schema}.{checkpoints}
    FOR EACH ROW EXECUTE FUNCTION {schema}.refuse_change();
REVOKE ALL ON {schema}.{checkpoints} FROM PUBLIC;
GRANT SELECT, INSERT ON {schema}.{checkpoints} TO {app_role};
