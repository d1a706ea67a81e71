"""A graded release's draws and hidden seeds are keyed by a secret that stays with the instructor: the
release writes it outside what learners receive, `grade` needs it for graded notebooks, and a learner
with the public package and a classmate's id cannot compute that classmate's variant or seeds."""

from __future__ import annotations

import json
import shutil
import stat
from pathlib import Path

import nbformat
import pytest

from autograd_course.cli import main
from autograd_course.exercises import EXERCISES
from autograd_course.graded import TOKEN_ENV, VARIANTS_FILE, challenge
from autograd_course.sealed import entry_key, unseal
from autograd_instructor.challenge.catalogue import render
from autograd_instructor.challenge.draw import variant_for
from autograd_instructor.challenge.hidden import hidden_runs
from autograd_instructor.challenge.secret import SecretError, graded_key, learner_token, read_secret
from autograd_instructor.grading.grade import NEEDS_SECRET, Record, Submission, _prepared
from autograd_instructor.grading.gradescope import bundled_secret

IDS = ("ada", "bob", "cy", "dee")


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("secret")
    (root / "roster.csv").write_text("id,name\n" + "".join(f"{i},{i}\n" for i in IDS))
    assert main(["release", str(root / "student"), "--graded", "--roster", str(root / "roster.csv")]) == 0
    return root


def _entries(release: Path) -> dict:
    """Each learner's entry, opened with the token the release gave them (OUT.tokens.json)."""
    data = json.loads((release / "student" / "exercises" / VARIANTS_FILE).read_text())
    tokens = json.loads((release / "student.tokens.json").read_text())
    return {i: unseal(data["learners"][entry_key(tokens[i])], tokens[i]) for i in IDS}


def test_the_secret_is_written_beside_the_release_never_in_it(release):
    path = release / "student.secret.json"
    secret = read_secret(path)
    assert len(secret) == 64 and stat.S_IMODE(path.stat().st_mode) == 0o600
    shipped = [p for p in (release / "student").rglob("*") if p.is_file()]
    assert shipped and not [p for p in shipped if secret in p.read_text(errors="ignore")]
    tokens = json.loads((release / "student.tokens.json").read_text())
    assert tokens["ada"] == learner_token(secret, "ada") != graded_key(secret, "ada")
    assert stat.S_IMODE((release / "student.tokens.json").stat().st_mode) == 0o600


def test_a_re_release_keeps_the_secret_and_every_variant(release, tmp_path):
    before = _entries(release)
    again = tmp_path / "again"
    shutil.copytree(release / "student", again / "student")
    shutil.copy(release / "student.secret.json", again / "student.secret.json")
    roster = str(release / "roster.csv")
    assert main(["release", str(again / "student"), "--graded", "--roster", roster]) == 0
    assert read_secret(again / "student.secret.json") == read_secret(release / "student.secret.json")
    assert {i: {e: x["code"] for e, x in v.items()} for i, v in _entries(again).items()} == {
        i: {e: x["code"] for e, x in v.items()} for i, v in before.items()
    }


def test_a_secret_file_inside_the_release_or_not_a_secret_is_refused(release, tmp_path, capsys):
    roster = str(release / "roster.csv")
    inside = str(tmp_path / "out" / "s.json")
    assert main(["release", str(tmp_path / "out"), "--graded", "--roster", roster, "--secret", inside]) == 2
    assert "inside the release" in capsys.readouterr().err
    (tmp_path / "bad.json").write_text("{}")
    bad = str(tmp_path / "bad.json")
    assert main(["release", str(tmp_path / "o2"), "--graded", "--roster", roster, "--secret", bad]) == 2
    assert "not a release secret" in capsys.readouterr().err
    with pytest.raises(SecretError, match="cannot read"):
        read_secret(tmp_path / "nowhere.json")


def test_the_public_package_and_an_id_do_not_give_a_classmates_variant(release):
    """The attack: a learner computes a classmate's graded code from the id with the public draw."""
    secret = read_secret(release / "student.secret.json")
    for learner, entry in _entries(release).items():
        assert all(entry[e]["code"] == render(variant_for(graded_key(secret, learner), e)) for e in EXERCISES)
        guessed = sum(entry[e]["code"] == render(variant_for(learner, e)) for e in EXERCISES)
        assert guessed < len(EXERCISES) / 2, learner
        other = graded_key("0" * 64, learner)  # a guessed secret draws something else
        assert sum(entry[e]["code"] == render(variant_for(other, e)) for e in EXERCISES) < len(EXERCISES) / 2


def test_the_hidden_seeds_follow_the_secret(release):
    secret = read_secret(release / "student.secret.json")
    key = graded_key(secret, "ada")
    assert key != graded_key(secret, "bob") and key != graded_key("0" * 64, "ada")
    public = [seed for e in EXERCISES for _, seed in hidden_runs("ada", e, 2)]
    assert public != [seed for e in EXERCISES for _, seed in hidden_runs(key, e, 2)]


def _graded_notebook(release: Path, where: Path) -> Path:
    path = where / "ada" / "A.ipynb"
    path.parent.mkdir(parents=True)
    shutil.copy(next((release / "student" / "exercises").glob("A_*.ipynb")), path)
    return path


def test_grade_refuses_graded_notebooks_without_the_secret_and_uses_it(release, tmp_path, capsys):
    path = _graded_notebook(release, tmp_path / "subs")
    argv = ["grade", str(tmp_path / "subs"), "--out", str(tmp_path / "out"), "--sandbox", "none", "-q"]
    assert main(argv) == 2
    assert "--secret FILE" in capsys.readouterr().err and not (tmp_path / "out").exists()
    (tmp_path / "bad.json").write_text('{"secret": "x"}')
    assert main([*argv, "--secret", str(tmp_path / "bad.json")]) == 2
    assert "not a release secret" in capsys.readouterr().err
    secret = read_secret(release / "student.secret.json")
    alone = _prepared(Submission("ada", "ada/A.ipynb", path, learner="ada"))
    assert isinstance(alone, Record) and alone.status == "error" and alone.message == NEEDS_SECRET
    keyed = _prepared(Submission("ada", "ada/A.ipynb", path, learner="ada", secret=secret))
    assert keyed.sub.learner == graded_key(secret, "ada")
    practice = tmp_path / "practice.ipynb"
    nb = nbformat.read(path, as_version=4)
    nb.metadata["autograd_course"]["mode"] = "practice"
    nbformat.write(nb, practice)
    assert _prepared(Submission("ada", "p", practice, learner="ada", secret=secret)).sub.learner == "ada"


def test_the_gradescope_bundle_s_secret_is_read_back(release, tmp_path):
    assert bundled_secret(tmp_path) is None
    (tmp_path / "source").mkdir()
    shutil.copy(release / "student.secret.json", tmp_path / "source" / "release-secret.json")
    assert bundled_secret(tmp_path) == read_secret(release / "student.secret.json")


def test_the_variants_file_opens_only_with_the_learners_own_token(release, monkeypatch):
    """The attack: a learner with the shipped file and a classmate's id reads the classmate's entry."""
    folder = release / "student" / "exercises"
    data = json.loads((folder / VARIANTS_FILE).read_text())
    text = json.dumps(data)
    assert "salt" not in data and not [i for i in IDS if f'"{i}"' in text]
    assert all(entry_key(i) not in data["learners"] for i in IDS)  # the id is no key
    tokens = json.loads((release / "student.tokens.json").read_text())
    ada = data["learners"][entry_key(tokens["ada"])]
    assert "broken_setup" not in text and "def " not in text  # sealed: no code readable as is
    with pytest.raises(ValueError, match="does not open"):
        unseal(ada, tokens["bob"])  # bob's token does not open ada's entry
    monkeypatch.setenv("AUTOGRAD_COURSE_LEARNER", "bob")
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    with pytest.raises(LookupError, match=TOKEN_ENV):
        challenge("A", {}, folder)  # the id alone opens nothing
    monkeypatch.setenv(TOKEN_ENV, tokens["ada"])
    assert challenge("A", {}, folder).code() == _entries(release)["ada"]["A"]["code"]
    monkeypatch.setenv(TOKEN_ENV, graded_key(read_secret(release / "student.secret.json"), "ada"))
    with pytest.raises(LookupError, match="no entry for your token"):
        challenge("A", {}, folder)  # a draw key is no token either
