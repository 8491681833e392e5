"""The `chain_link` trigger function as schema 12 defined it (infra/sql/shard.sql before the
salt): what linked every row a version-12 database holds. Tests and the salt's benchmark put
it back to store rows as an older Senki did."""

from __future__ import annotations

from infra.store.names import ShardTables


def schema_12_chain_link(shard: ShardTables) -> str:
    """The statement that makes `shard`'s trigger link new rows without a salt again."""
    return f"""
CREATE OR REPLACE FUNCTION senki.{shard.events}_chain_link() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
    prev_id bigint;
    prev_hash bytea;
    topic_bytes bytea := convert_to(coalesce(NEW.topic, ''), 'UTF8');
    state_bytes bytea := coalesce(NEW.state, ''::bytea);
BEGIN
    LOCK TABLE senki.{shard.write_lock} IN EXCLUSIVE MODE;
    SELECT e.notification_id, e.chain_hash INTO prev_id, prev_hash
      FROM senki.{shard.events} e ORDER BY e.notification_id DESC LIMIT 1;
    IF prev_id IS NULL THEN
        prev_id := 0;
        prev_hash := sha256('{shard.chain_genesis.decode()}'::bytea);
    END IF;
    IF NEW.notification_id <= prev_id THEN
        RAISE EXCEPTION 'senki: event % would be chained after %, out of log order',
            NEW.notification_id, prev_id USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    NEW.chain_prev := prev_id;
    NEW.chain_hash := sha256(
        prev_hash
        || int8send(NEW.notification_id)
        || uuid_send(NEW.originator_id)
        || int8send(NEW.originator_version)
        || int4send(octet_length(topic_bytes)) || topic_bytes
        || int4send(octet_length(state_bytes)) || state_bytes
    );
    RETURN NEW;
END
$fn$;
"""
