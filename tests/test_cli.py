"""The `autograd-course` command: help with the course map, and the `map` subcommand."""

import subprocess
import sys
from pathlib import Path

import pytest

from autograd_course import COURSE_MAP
from autograd_course.cli import build_parser, course_map_text, main

SCRIPT = Path(sys.executable).with_name("autograd-course")


def _lines_for_every_lesson(text: str) -> None:
    for lesson in COURSE_MAP:
        line = next(line for line in text.splitlines() if line.strip().startswith(lesson.number + "  "))
        assert lesson.title in line and f"{lesson.minutes} min" in line and lesson.learn in line


def test_course_map_text_lists_every_lesson_in_order():
    text = course_map_text()
    assert text.splitlines()[0] == "Course map (notebooks/):"
    _lines_for_every_lesson(text)
    positions = [text.index(f"  {lesson.number}  {lesson.title}") for lesson in COURSE_MAP]
    assert positions == sorted(positions)
    assert "exercises/" in text.splitlines()[-1]


def test_no_arguments_prints_help_and_the_map(capsys):
    assert main([]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: autograd-course")
    assert "map" in out and course_map_text() in out


def test_map_subcommand(capsys):
    assert main(["map"]) == 0
    assert capsys.readouterr().out == course_map_text() + "\n"


def test_unknown_command_is_an_argparse_error(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["no-such-command"])
    assert exit_.value.code == 2
    assert "invalid choice: 'no-such-command'" in capsys.readouterr().err


def test_every_command_module_follows_the_contract():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert "map" in sub.choices
    for name, child in sub.choices.items():
        assert child.description, f"{name} has no HELP"
        assert callable(child.get_default("_main"))


def test_console_script_and_python_m_agree():
    installed = subprocess.run([str(SCRIPT)], capture_output=True, text=True, timeout=60, check=False)
    assert installed.returncode == 0, installed.stderr
    assert installed.stdout.startswith("usage: autograd-course") and course_map_text() in installed.stdout
    module = subprocess.run(
        [sys.executable, "-m", "autograd_course", "map"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert module.returncode == 0, module.stderr
    assert module.stdout == course_map_text() + "\n"
