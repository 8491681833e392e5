-- Objects shared by every shard. Placeholders: {schema}, {app_role}.
CREATE TABLE IF NOT EXISTS {schema}.schema_migrations (
    version integer PRIMARY KEY,
    applied_at timestamptz NOT NULL DEFAULT now()
);

CREATE OR REPLACE FUNCTION {schema}.refuse_change() RETURNS trigger
LANGUAGE plpgsql AS $fn$
BEGIN
    RAISE EXCEPTION 'senki: % on %.% refused: stored events are append-only',
        TG_OP, TG_TABLE_SCHEMA, TG_TABLE_NAME
        USING ERRCODE = 'insufficient_privilege',
              HINT = 'Record a correcting event instead of changing history.';
END
$fn$;

GRANT USAGE ON SCHEMA {schema} TO {app_role};
GRANT SELECT ON {schema}.schema_migrations TO {app_role};
