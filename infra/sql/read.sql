-- The read side: the projector's registry and tracking, in their own schema. Placeholders:
-- {read_schema}, {app_role}. Idempotent. The per-generation tables of each read model
-- (e.g. character_sheets_g2) are created by the projector itself, as the service role: they
-- hold nothing that cannot be rebuilt from the log, unlike schema senki, where that role may
-- only read and append.
CREATE SCHEMA IF NOT EXISTS {read_schema};

-- One row per projection: the generation reads use (live) and the one being built beside it.
CREATE TABLE IF NOT EXISTS {read_schema}.projections (
    name text PRIMARY KEY,
    live_generation integer,
    live_version integer,
    building_generation integer,
    building_version integer,
    last_generation integer NOT NULL DEFAULT 0,
    switched_at timestamptz
);

-- The log position each generation of each projection reflects, per shard. Written in the
-- same transaction as the rows it accounts for: that is what makes projection exactly once.
CREATE TABLE IF NOT EXISTS {read_schema}.tracking (
    projection text NOT NULL,
    generation integer NOT NULL,
    shard integer NOT NULL,
    position bigint NOT NULL DEFAULT 0,
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (projection, generation, shard)
);

REVOKE ALL ON SCHEMA {read_schema} FROM PUBLIC;
GRANT USAGE, CREATE ON SCHEMA {read_schema} TO {app_role};
GRANT SELECT, INSERT, UPDATE, DELETE ON {read_schema}.projections, {read_schema}.tracking
    TO {app_role};

-- Moves a group of tracking positions, all at `before`, to `after`; raises when any of them is
-- no longer at `before` (another projector wrote: the batch must roll back). Then, if `notice`
-- is given, NOTIFYs it on senki_projected (infra.projector.runner.PROJECTED_CHANNEL), delivered
-- once the batch commits. A function, so the check and the notice run inside the batch's
-- pipelined transaction without a statement of their own.
CREATE OR REPLACE FUNCTION {read_schema}.advance_tracking(
    names text[], generations integer[], at_shard integer, before bigint, after bigint,
    notice text
) RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
    moved integer;
BEGIN
    UPDATE {read_schema}.tracking t SET position = after, updated_at = now()
     WHERE t.shard = at_shard AND t.position = before
       AND (t.projection, t.generation) IN (SELECT * FROM unnest(names, generations));
    GET DIAGNOSTICS moved = ROW_COUNT;
    IF moved <> cardinality(names) THEN
        RAISE EXCEPTION 'senki: tracking moved under this projector (% of % at %)',
            moved, cardinality(names), before USING ERRCODE = 'serialization_failure';
    END IF;
    IF notice IS NOT NULL THEN
        PERFORM pg_notify('senki_projected', notice);
    END IF;
END
$fn$;
GRANT EXECUTE ON FUNCTION
    {read_schema}.advance_tracking(text[], integer[], integer, bigint, bigint, text)
    TO {app_role};

-- The schema-3 form, without the notice: a projector of the previous release still calls it
-- during a rolling update.
CREATE OR REPLACE FUNCTION {read_schema}.advance_tracking(
    names text[], generations integer[], at_shard integer, before bigint, after bigint
) RETURNS void LANGUAGE sql AS $fn$
    SELECT {read_schema}.advance_tracking(names, generations, at_shard, before, after, NULL)
$fn$;
GRANT EXECUTE ON FUNCTION {read_schema}.advance_tracking(text[], integer[], integer, bigint, bigint)
    TO {app_role};
