"""Runs the read models of `projections/` against PostgreSQL: tables, batches, lock, reads."""
