-- Schema 5: events a read model could not take, parked for that model and stream
-- (infra/projector/park.py). Placeholders: {read_schema}, {app_role}. Idempotent, so an
-- older database upgrades by running `senki db migrate` again.
--
-- A generation of a projection whose handler (or whose rows) fails on an event parks it
-- here, in the same transaction as the tracking position that moves past it; while a
-- stream has a parked event, that generation parks every later event of the stream behind
-- it (`behind` = the first one), so a stream's events are never applied out of order.
-- `senki projections retry` sets `retry_requested`; the projector then applies the parked
-- events again, in position order, and deletes each one it applied.
CREATE TABLE IF NOT EXISTS {read_schema}.parked (
    projection text NOT NULL,
    generation integer NOT NULL,
    shard integer NOT NULL,
    position bigint NOT NULL,
    stream_id uuid NOT NULL,
    behind bigint,  -- NULL: this event failed; else the parked position it waits behind
    reason text NOT NULL,
    parked_at timestamptz NOT NULL DEFAULT now(),
    retry_requested timestamptz,
    PRIMARY KEY (projection, generation, shard, position)
);

REVOKE ALL ON {read_schema}.parked FROM PUBLIC;
GRANT SELECT, INSERT, UPDATE, DELETE ON {read_schema}.parked TO {app_role};
