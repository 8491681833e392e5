-- Every checkpoint the shard's log signed and served (issue 37): kept so that each one served
-- stays provably consistent with every later one. Append-only like the events. Schema 11.

CREATE TABLE IF NOT EXISTS {schema}.{checkpoints} (
    tree_size bigint PRIMARY KEY,
    note text NOT NULL,
    signed_at timestamptz NOT NULL DEFAULT now()
);
DROP TRIGGER IF EXISTS append_only_rows ON {schema}.{checkpoints};
CREATE TRIGGER append_only_rows BEFORE UPDATE OR DELETE ON {schema}.{checkpoints}
    FOR EACH ROW EXECUTE FUNCTION {schema}.refuse_change();
REVOKE ALL ON {schema}.{checkpoints} FROM PUBLIC;
GRANT SELECT, INSERT ON {schema}.{checkpoints} TO {app_role};
