"""The `autograd-course` command: help with the course map, and the `map` subcommand."""

import logging
import subprocess
import sys
from pathlib import Path

import pytest

from autograd_course import COURSE_MAP
from autograd_course.cli import build_parser, course_map_text, main
from autograd_course.commands._verbosity import configure_logging

SCRIPT = Path(sys.executable).with_name("autograd-course")


def _lines_for_every_lesson(text: str) -> None:
    for lesson in COURSE_MAP:
        line = next(line for line in text.splitlines() if line.strip().startswith(lesson.number + "  "))
        assert lesson.title in line and f"{lesson.minutes} min" in line and lesson.learn in line


def test_course_map_text_lists_every_lesson_in_order():
    text = course_map_text()
    assert text.splitlines()[0] == "Course map (the lessons, in order):"
    assert "notebooks/" not in text and "exercises/" not in text  # a workspace has lessons/ and DIR/
    _lines_for_every_lesson(text)
    positions = [text.index(f"  {lesson.number}  {lesson.title}") for lesson in COURSE_MAP]
    assert positions == sorted(positions)
    assert "TinyNet bug challenge" in text.splitlines()[-1]


def test_no_arguments_prints_help_and_the_map(capsys):
    assert main([]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: autograd-course")
    assert "map" in out and course_map_text() in out


def test_map_prints_the_course_map(capsys):
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


@pytest.mark.parametrize(
    "argv", [["--help"], ["progress", "--dir", "."], ["map"], ["links", "--repo", "https://github.com/a/b"]]
)
def test_start_up_commands_do_not_import_torch(argv, tmp_path):
    code = (
        "import sys\nfrom autograd_course.cli import main\n"
        f"try:\n    main({argv!r})\nexcept SystemExit:\n    pass\n"
        "print('torch imported' if 'torch' in sys.modules else 'no torch', file=sys.stderr)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert done.stderr.strip().splitlines()[-1] == "no torch", done.stderr


def test_map_command_does_not_import_the_cli():
    source = (Path(__file__).parent.parent / "autograd_course" / "commands" / "map.py").read_text()
    assert "autograd_course.cli" not in source


def test_start_copies_every_lesson_and_exercise_and_keeps_the_learners_files(tmp_path, capsys):
    from autograd_course.course import course_notebooks, exercise_notebooks

    ws = tmp_path / "ws"
    (ws / "lessons").mkdir(parents=True)
    mine = ws / "lessons" / course_notebooks()[0].name
    mine.write_text("my notes")
    assert main(["start", str(ws)]) == 0
    assert mine.read_text() == "my notes" and f"kept   {mine}" in capsys.readouterr().out
    assert sorted(p.name for p in (ws / "lessons").glob("*.ipynb")) == [p.name for p in course_notebooks()]
    assert sorted(p.name for p in ws.glob("*.ipynb")) == [p.name for p in exercise_notebooks()]
    assert not (ws / "course.json").exists()


def test_start_seed_records_the_learner_and_stamps_the_exercises(tmp_path, capsys):
    import json

    from autograd_course.course import course_notebooks, exercise_notebooks

    ws = tmp_path / "ws"
    assert main(["start", str(ws), "--seed", "alice@example.org"]) == 0
    assert json.loads((ws / "course.json").read_text()) == {"learner": "alice@example.org"}
    for nb in exercise_notebooks():
        assert (
            json.loads((ws / nb.name).read_text())["metadata"]["autograd_course"]["learner"]
            == "alice@example.org"
        )
    lesson = ws / "lessons" / course_notebooks()[0].name
    assert lesson.read_bytes() == course_notebooks()[0].read_bytes()
    assert main(["start", str(ws), "--seed", "bob"]) == 2  # someone else's workspace: nothing changes
    assert "belongs to learner 'alice@example.org'" in capsys.readouterr().err
    (ws / exercise_notebooks()[0].name).write_text("edited")
    assert main(["reset", "a", "--dir", str(ws)]) == 0  # lower case; the restored copy keeps the learner
    restored = json.loads((ws / exercise_notebooks()[0].name).read_text())
    assert restored["metadata"]["autograd_course"]["learner"] == "alice@example.org"
    (backup,) = (ws / "backups").glob("A_*.ipynb")
    assert backup.read_text() == "edited"
    assert main(["start", str(tmp_path / "w2"), "--seed", " "]) == 2


def test_reset_restores_a_lesson_into_lessons(tmp_path):
    import json

    from autograd_course.course import course_notebooks
    from autograd_course.workspace import hide_revealed_answers

    ws = tmp_path / "ws"
    assert main(["reset", "03", "--dir", str(ws)]) == 0
    (restored,) = (ws / "lessons").glob("03_*.ipynb")
    expected = json.loads(course_notebooks()[3].read_text(encoding="utf-8"))
    hide_revealed_answers(expected)  # a learner's copy keeps every output but those that give an answer away
    assert json.loads(restored.read_text(encoding="utf-8")) == expected


@pytest.mark.parametrize(
    ("flag", "level"), [([], "INFO"), (["--quiet"], "WARNING"), (["--verbose"], "DEBUG")]
)
@pytest.mark.parametrize(("command", "logger"), [("grade", "grading"), ("run", "regression")])
def test_quiet_and_verbose_set_the_level_of_the_tools_log(command, logger, flag, level, capsys):
    args = build_parser().parse_args([command, *flag] + (["--out", "x"] if command == "grade" else []))
    log = configure_logging(args, f"autograd_course.{logger}")
    assert logging.getLevelName(log.level) == level
    log.info("progress line")
    assert ("progress line" in capsys.readouterr().err) == (level != "WARNING")


def test_quiet_and_verbose_exclude_each_other(capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args(["run", "--quiet", "--verbose"])
    assert "not allowed with argument" in capsys.readouterr().err


def test_a_reader_that_leaves_early_gets_no_broken_pipe_traceback(tmp_path):
    assert main(["start", str(tmp_path / "ws")]) == 0
    proc = subprocess.Popen(
        [sys.executable, "-m", "autograd_course", "progress", "--dir", str(tmp_path / "ws")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    proc.stdout.close()  # as `| head -0` does, before anything is written
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0 and b"Traceback" not in err and b"BrokenPipe" not in err, err


def test_help_names_the_workspace_folders(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "DIR/lessons/" in out and "DIR/backups/" in out and "autograd-course check DIR" in out


def test_the_course_map_is_the_top_level_helps_epilog_and_a_commands_own_epilog_is_kept(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    top = capsys.readouterr().out
    assert "Course map (the lessons, in order):" in top and "\n  00  The mental model" in top
    with pytest.raises(SystemExit):
        main(["grade", "--help"])
    grade = capsys.readouterr().out
    assert "Course map" not in grade and "exit status: 0 grading completed" in grade
