"""Armor Knights (装甲騎士アーマーナイツ): a duel ledger, RULES.md section AK.

The seed is a supplement without hit or damage formulas, so the engine keeps the procedure
(turns, points, ranges, moves, tracking, reload) and the GM rules every outcome it lacks.
"""
