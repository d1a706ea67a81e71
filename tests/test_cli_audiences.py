"""Who each command is for, and the one way a command fails.

`autograd-course --help` lists a learner's commands only; `help instructor` and `help maintainer` list the
others, which run all the same. Bad input is a CommandError the CLI prints once: `error: ...` on stderr,
nothing on stdout, exit 2 (protocol.EXITS documents each status)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from autograd_course.cli import main
from autograd_course.commands import AUDIENCES, command_modules
from autograd_course.protocol import EXIT_BAD_INPUT, EXITS, CommandError

COMMANDS = Path(__file__).resolve().parent.parent / "autograd_course" / "commands"


def _listed(text: str) -> set[str]:
    """The command names a help text lists, one per line, indented."""
    names = {m.NAME for m in command_modules()}
    return {w for line in text.splitlines() if (w := line.split()[0] if line.split() else "") in names}


def test_every_command_has_one_known_audience():
    modules = command_modules()
    assert {m.AUDIENCE for m in modules} == set(AUDIENCES)
    learner = {m.NAME for m in modules if m.AUDIENCE == "learner"}
    assert {"learn", "start", "check", "progress", "reset", "help"} <= learner
    others = {"grade", "release", "collect", "gradescope", "generate", "setup-cell", "run", "site"}
    assert not learner & others


def test_top_level_help_lists_a_learners_commands_and_points_to_the_others(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    listing = out.split("options:")[0]
    learner = {m.NAME for m in command_modules() if m.AUDIENCE == "learner"}
    assert _listed(listing) == learner
    assert "autograd-course help instructor" in out and "autograd-course help maintainer" in out


@pytest.mark.parametrize("who", ["instructor", "maintainer"])
def test_help_lists_each_audiences_commands_which_still_run(who, capsys):
    assert main(["help", who]) == 0
    out = capsys.readouterr().out
    chosen = {m.NAME for m in command_modules() if who == m.AUDIENCE}
    assert _listed(out) == chosen
    for name in chosen:  # not listed in the top-level help, still a command
        with pytest.raises(SystemExit) as done:
            main([name, "--help"])
        assert done.value.code == 0


def test_help_all_lists_every_command_once(capsys):
    assert main(["help", "all"]) == 0
    lines = [line.split()[0] for line in capsys.readouterr().out.splitlines() if line.startswith("  ")]
    assert sorted(lines) == sorted(m.NAME for m in command_modules())


BAD_INPUT = [
    (["check", "{tmp}/nowhere"], "does not exist; expected a notebook or a folder"),
    (["progress", "--dir", "{tmp}/nowhere"], "no workspace at"),
    (["start", "{tmp}/afile"], "exists and is not a folder; expected a folder"),
    (["reset", "Z9", "--dir", "{tmp}"], ""),
    (["class-progress", "{tmp}/afile"], "is not a folder; expected the folder of the learners' homes"),
    (["grade", "{tmp}/nowhere", "--out", "{tmp}/results"], "expected the folder of submissions"),
    (["gradescope", "--out", "{tmp}/afile/bundle.zip"], "expected --out in an existing folder"),
    (["links", "--hub", "ftp://hub"], "expected --hub as an https URL"),
    (["site", "{tmp}/afile"], "is a file, not a folder"),
    (["run", "{tmp}/nowhere.ipynb"], ""),
    (["setup-cell", "--check", "{tmp}/nowhere.ipynb"], "no such notebook"),
]


@pytest.mark.parametrize(("argv", "says"), BAD_INPUT, ids=[a[0] for a, _ in BAD_INPUT])
def test_bad_input_is_one_error_on_stderr_with_exit_2_and_nothing_written(argv, says, tmp_path, capsys):
    (tmp_path / "afile").write_text("mine", encoding="utf-8")
    before = sorted(p.name for p in tmp_path.iterdir())
    code = main([a.replace("{tmp}", str(tmp_path)) for a in argv])
    out, err = capsys.readouterr()
    assert code == EXIT_BAD_INPUT and EXITS[code].startswith("nothing done")
    assert err.startswith("error: ") and says in err and "Traceback" not in err
    assert out == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert (tmp_path / "afile").read_text(encoding="utf-8") == "mine"


def test_commands_do_not_print_their_own_errors_or_return_bare_codes():
    """The CLI prints a CommandError in one place; a command that printed `error:` itself and returned 2
    would be a second way to fail."""
    for path in sorted(COMMANDS.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Return) and isinstance(node.value, ast.Constant):
                assert node.value.value != EXIT_BAD_INPUT, f"{path.name}:{node.lineno} returns 2 itself"
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                where = f"{path.name}:{node.lineno}"
                assert not re.match(r"error: ", node.value), f"{where} prints an error itself"


def test_a_command_error_says_what_was_expected_and_its_notes():
    error = CommandError("expected a folder", "your next notebook: x.ipynb")
    assert error.code == EXIT_BAD_INPUT
    assert error.lines() == ["error: expected a folder", "your next notebook: x.ipynb"]
    assert "expected a folder" in repr(error)


def test_the_readmes_exit_table_is_the_one_in_protocol():
    readme = (COMMANDS.parent.parent / "README.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| (\d) \| (.+) \|$", readme, re.M))
    assert {int(k): v for k, v in rows.items()} == EXITS
