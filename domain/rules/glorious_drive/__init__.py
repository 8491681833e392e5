"""Glorious Drive (グロリアスドライヴ) rule calculators — RULES.md section GD.

Leaf functions only: they take numbers (and dice already drawn, or a `draw` callable that
the caller records), decide, and return what they decided with the rule IDs behind it.
They hold no state; the Encounter aggregate applies their results.
"""
