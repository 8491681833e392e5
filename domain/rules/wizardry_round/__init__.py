"""A Wizardry-style round procedure (RULES.md section WZ): INI, TP, declarations, innings.

The seed defines the order of play, fatigue and TP, but no hit or damage formula: every
check is rolled by dice expression and the GM rules on its outcome (a recorded ruling).
"""
