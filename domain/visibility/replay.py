"""Who may run a what-if replay (docs/visibility.md "A what-if is not an oracle").

A replay re-decides every later command of the fight from the amended one on; where a hidden
combatant is in it, those decisions read its sheet. Whether it falls, which later commands
still apply, whether a die is then missing, even which keys differ: each depends on its
withheld numbers, so no redaction of the answer can keep them (a player found HP + defence
in ten replays, bisecting her own attack). A reader from whom a combatant of the fight is
hidden is therefore refused a replay; the GM runs it for the table, and adopts it.
"""

from __future__ import annotations

from collections.abc import Iterable

from domain.errors import NotPermitted
from domain.visibility.encounter import Joined, Policy, Reader

REFUSAL = (
    "a what-if replay of a fight with a combatant hidden from you is the GM's: what changes "
    "in its answer would tell that combatant's hidden numbers. File a dispute and ask the GM "
    "to replay it (GET …/options lists what a replay can try)."
)
REFUSAL_JA = (
    "あなたに非公開の参加者がいる戦闘の「もしも」再計算はGMのものです。答えの変化からその参加者の"
    "非公開の数値がわかってしまうからです。異議を申し立て、GMに再計算を頼んでください"
    "（GET …/options で再計算で試せるものが一覧できます）。"
)


def check_may_replay(reader: Reader, combatants: Iterable[Joined]) -> None:
    """Refuse a replay to a reader from whom any combatant of the recorded fight is hidden.

    Judged on the fight as recorded, never on the replay: the refusal must not depend on
    what the replay would compute. (A join amended to hide a combatant hides only numbers
    the reader typed; the answer's policy still withholds them.)"""
    if not Policy.for_reader(reader, combatants).sees_all:
        raise NotPermitted(REFUSAL, ja=REFUSAL_JA)
