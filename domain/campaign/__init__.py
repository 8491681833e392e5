"""The campaign ledger's aggregates: Campaign, Character (pilot), Unit and Scenario.

Pure like the rest of `domain/`: decide functions take states, commands, the clock (`at`)
and the actor (`by`) as arguments and return events; `evolve` folds events into state.
Numbers come from the Glorious Drive calculators in `domain/rules/glorious_drive/`.

Each aggregate is a pair of modules: `<name>.py` (events, state, `evolve`, `KIND`) and
`<name>_commands.py` (commands and deciders). `model.py` holds the shared value objects,
`derived.py` the numbers computed from sheets, `errors.py` the non-rule refusals.
"""
