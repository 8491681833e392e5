"""The Encounter aggregate: one fight, adjudicated by any ruleset behind `domain.rules.ruleset`.

Import the modules directly (`domain.encounter.aggregate`); this package imports nothing so
that rulesets can be loaded without loading the aggregate.
"""
