"""High Roll: the smallest rule system, to show that a fourth one is one folder plus one line
in domain/encounter/rulesets.py (docs/architecture.md, "Adding a rule system")."""
