"""Each command is declared once, on its handler: its class, where the procedure awaits it and
its name for the table in English and Japanese; the ruleset's commands, handler table, legal
commands and labels are read from the declarations (domain/rules/declare.py)."""

from __future__ import annotations

import re
from types import ModuleType

import pytest

from domain.encounter.commands import COMMANDS as OWN
from domain.encounter.commands import LABELS as OWN_LABELS
from domain.encounter.rulesets import RULESETS
from domain.rules.declare import Declarations
from domain.rules.glorious_drive import commands as gd
from domain.rules.glorious_drive.ruleset import DECLARED as GD_DECLARED
from domain.rules.ruleset import Command, Labels

JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


def _named(labels: Labels) -> bool:
    return bool(labels.en.strip()) and JAPANESE.search(labels.ja) is not None


@pytest.mark.parametrize("ruleset_id", sorted(RULESETS))
def test_every_command_has_a_name_for_the_table_in_english_and_in_japanese(
    ruleset_id: str,
) -> None:
    ruleset = RULESETS[ruleset_id]
    names = {c.command_type for c in ruleset.commands}
    assert set(ruleset.labels) == names
    unnamed = [name for name, labels in ruleset.labels.items() if not _named(labels)]
    assert unnamed == [], f"{ruleset_id}: give these an English and a Japanese label"


def test_the_encounters_own_commands_have_their_names_too() -> None:
    assert set(OWN_LABELS) == {c.command_type for c in OWN}
    assert all(_named(labels) for labels in OWN_LABELS.values())


@pytest.mark.parametrize("ruleset_id", sorted(RULESETS))
def test_each_command_is_one_class_of_one_name(ruleset_id: str) -> None:
    names = [c.command_type for c in RULESETS[ruleset_id].commands]
    assert len(names) == len(set(names))


def test_a_step_awaits_its_commands_in_the_order_commands_py_writes_them() -> None:
    # GD-MAIN-5: the action step's buttons, as the page lists them.
    assert gd.DECLARED.awaited_in("action") == (
        gd.DeclareAttack,
        gd.AttackUnarmed,
        gd.ThrowItem,
        gd.LendItem,
        gd.SwapEquipment,
        gd.UseItem,
        gd.Reload,
        gd.ForgoAction,
    )
    assert [d.command for d in GD_DECLARED] == sorted(
        (d.command for d in GD_DECLARED), key=lambda c: c.written
    )


class _Shout(Command):
    command_type = "Shout"


def test_a_declaration_naming_no_step_of_the_procedure_is_refused() -> None:
    declared: Declarations[object, str] = Declarations(("action",))
    with pytest.raises(ValueError, match="no such step"):
        declared.command(_Shout, legal="acton", en="Shout", ja="叫ぶ")


def test_a_command_declared_twice_is_refused() -> None:
    declared: Declarations[object, str] = Declarations(("action",))
    declared.command(_Shout, legal="action", en="Shout", ja="叫ぶ")(lambda run, c: None)
    with pytest.raises(ValueError, match="declared twice"):
        declared.command(_Shout, legal="action", en="Shout", ja="叫ぶ")(lambda run, c: None)


def test_a_module_the_ruleset_names_that_declares_nothing_is_refused() -> None:
    declared: Declarations[object, str] = Declarations(("action",))
    with pytest.raises(ValueError, match="declare no command"):
        declared.sealed(ModuleType("domain.rules.glorious_drive.nothing_here"))


def test_the_procedure_cannot_read_declarations_before_its_ruleset_sealed_them() -> None:
    declared: Declarations[object, str] = Declarations(("action",))
    with pytest.raises(RuntimeError, match="not sealed"):
        declared.awaited_in("action")


def test_a_refusal_names_a_declared_command_in_japanese_and_an_unknown_one_as_sent() -> None:
    # GD-INJ-1..4: "…は再起不能です：クリーンナップは行えません", not "Cleanupは行えません".
    assert gd.DECLARED.named_ja("Cleanup") == "クリーンナップ"
    assert gd.DECLARED.named_ja("NoSuchCommand") == "NoSuchCommand"
