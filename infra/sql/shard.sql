-- Per-shard protections and bookkeeping, run by `senki db migrate` as the owning role after
-- the eventsourcing library has created its events table. Placeholders: {schema}, {events},
-- {write_lock}, {idempotency}, {snapshots}, {sequence}, {app_role}, {genesis}, {chain_fn}.
-- Idempotent: every statement can run again.

CREATE TABLE IF NOT EXISTS {schema}.{write_lock} (locked boolean);

ALTER TABLE {schema}.{events} ADD COLUMN IF NOT EXISTS chain_prev bigint;
ALTER TABLE {schema}.{events} ADD COLUMN IF NOT EXISTS chain_hash bytea;
-- Schema 13: a secret per-event salt inside the link, so a chain hash (every event's Merkle
-- leaf, served to readers who see the event redacted) cannot be used to test guesses of a
-- hidden value. NULL on rows stored before it: they keep the unsalted formula. Never served.
ALTER TABLE {schema}.{events} ADD COLUMN IF NOT EXISTS chain_salt bytea;

-- The hash chain: each row's hash covers the previous row's hash and this row's own columns,
-- so an edit, a removal, an insertion or a reordering anywhere breaks every later link.
-- SECURITY DEFINER: it takes the shard's write lock as the owner, even for writers that skipped
-- it, so links are always computed in notification order.
CREATE OR REPLACE FUNCTION {schema}.{chain_fn}() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
    prev_id bigint;
    prev_hash bytea;
    topic_bytes bytea := convert_to(coalesce(NEW.topic, ''), 'UTF8');
    state_bytes bytea := coalesce(NEW.state, ''::bytea);
    -- 16 bytes, 122 of them random (core PostgreSQL >= 13, no extension the app role lacks).
    salt bytea := uuid_send(gen_random_uuid());
BEGIN
    LOCK TABLE {schema}.{write_lock} IN EXCLUSIVE MODE;
    SELECT e.notification_id, e.chain_hash INTO prev_id, prev_hash
      FROM {schema}.{events} e ORDER BY e.notification_id DESC LIMIT 1;
    IF prev_id IS NULL THEN
        prev_id := 0;
        prev_hash := sha256({genesis}::bytea);
    END IF;
    IF NEW.notification_id <= prev_id THEN
        RAISE EXCEPTION 'senki: event % would be chained after %, out of log order',
            NEW.notification_id, prev_id USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    NEW.chain_prev := prev_id;
    NEW.chain_salt := salt;
    NEW.chain_hash := sha256(
        prev_hash
        || int8send(NEW.notification_id)
        || uuid_send(NEW.originator_id)
        || int8send(NEW.originator_version)
        || salt
        || int4send(octet_length(topic_bytes)) || topic_bytes
        || int4send(octet_length(state_bytes)) || state_bytes
    );
    RETURN NEW;
END
$fn$;

DROP TRIGGER IF EXISTS chain_link ON {schema}.{events};
CREATE TRIGGER chain_link BEFORE INSERT ON {schema}.{events}
    FOR EACH ROW EXECUTE FUNCTION {schema}.{chain_fn}();

-- Append-only: no role, the owner included, may change or remove a stored event while the
-- triggers are enabled; a superuser who disables them is caught by `senki verify`.
DROP TRIGGER IF EXISTS append_only_rows ON {schema}.{events};
CREATE TRIGGER append_only_rows BEFORE UPDATE OR DELETE ON {schema}.{events}
    FOR EACH ROW EXECUTE FUNCTION {schema}.refuse_change();
DROP TRIGGER IF EXISTS append_only_truncate ON {schema}.{events};
CREATE TRIGGER append_only_truncate BEFORE TRUNCATE ON {schema}.{events}
    FOR EACH STATEMENT EXECUTE FUNCTION {schema}.refuse_change();

CREATE TABLE IF NOT EXISTS {schema}.{idempotency} (
    key text PRIMARY KEY,
    fingerprint text NOT NULL,
    response jsonb NOT NULL,
    recorded_at timestamptz NOT NULL DEFAULT now()
);
DROP TRIGGER IF EXISTS append_only_rows ON {schema}.{idempotency};
CREATE TRIGGER append_only_rows BEFORE UPDATE OR DELETE ON {schema}.{idempotency}
    FOR EACH ROW EXECUTE FUNCTION {schema}.refuse_change();

REVOKE ALL ON {schema}.{events}, {schema}.{write_lock}, {schema}.{idempotency},
    {schema}.{snapshots} FROM PUBLIC;
REVOKE ALL ON {schema}.{events}, {schema}.{idempotency} FROM {app_role};
GRANT SELECT, INSERT ON {schema}.{events} TO {app_role};
GRANT USAGE ON SEQUENCE {schema}.{sequence} TO {app_role};
GRANT UPDATE ON {schema}.{write_lock} TO {app_role};
GRANT SELECT, INSERT ON {schema}.{idempotency} TO {app_role};
GRANT SELECT, INSERT ON {schema}.{snapshots} TO {app_role};
