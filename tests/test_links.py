"""`autograd-course links`: the URL shapes per platform, and the README's badges follow [project.urls]."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest

from autograd_course.cli import main
from autograd_course.course import checkout, course_notebooks, exercise_notebooks
from autograd_course.setup_cell import repository
from autograd_instructor.commands.links import markdown_table, notebook_links

FORK = "https://github.com/teacher/autograd-fork"


def test_every_lesson_and_exercise_gets_colab_binder_and_hub_links():
    links = notebook_links(FORK + ".git", "spring-2027", "https://hub.example.edu/")
    expected = [f"notebooks/{p.name}" for p in course_notebooks()]
    expected += [f"exercises/{p.name}" for p in exercise_notebooks()]
    assert [link.path for link in links] == expected
    first = links[0]
    assert (
        first.colab
        == f"https://colab.research.google.com/github/teacher/autograd-fork/blob/spring-2027/{first.path}"
    )
    binder = urlparse(first.binder)
    assert (binder.netloc, binder.path) == ("mybinder.org", "/v2/gh/teacher/autograd-fork/spring-2027")
    assert parse_qs(binder.query) == {"labpath": [first.path]}
    hub = urlparse(first.hub)
    assert (hub.netloc, hub.path) == ("hub.example.edu", "/hub/user-redirect/git-pull")
    assert parse_qs(hub.query) == {
        "repo": [FORK],
        "branch": ["spring-2027"],
        "urlpath": [f"lab/tree/autograd-fork/{first.path}"],
    }


def test_a_repository_outside_github_gets_binder_by_git_url_and_no_colab():
    (link, *_) = notebook_links("https://gitlab.example.org/group/course", "main")
    assert link.colab == "" and link.hub == ""
    assert link.binder.startswith(
        "https://mybinder.org/v2/git/https%3A%2F%2Fgitlab.example.org%2Fgroup%2Fcourse.git/main?"
    )


def test_markdown_is_a_badge_table_with_a_row_per_notebook(capsys):
    assert main(["links", "--repo", FORK, "--markdown", "--hub", "https://hub.example.edu"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "| notebook | Colab | Binder | JupyterHub |"
    assert len(lines) == 2 + len(course_notebooks()) + len(exercise_notebooks())
    assert "colab-badge.svg" in lines[2] and "badge_logo.svg" in lines[2] and "[open](https://hub" in lines[2]


@pytest.mark.parametrize("args", [["--repo", "teacher/fork"], ["--repo", FORK, "--hub", "hub.example.edu"]])
def test_bad_urls_are_clear_errors(args, capsys):
    assert main(["links", *args]) == 2
    assert "expected" in capsys.readouterr().err


def test_readme_badges_follow_project_urls():
    """No public home: the README links to no repository. With one: its table is the generated one."""
    root = checkout()
    if root is None:
        pytest.skip("needs the checkout's README")
    readme = (root / "README.md").read_text(encoding="utf-8")
    repo = repository()
    if repo is None:
        for marker in ("colab.research.google.com/github", "mybinder.org/v2", "git-pull?"):
            assert marker not in readme, (
                f"README links to a repository while [project.urls] names none: {marker}"
            )
        assert "autograd-course links --repo" in readme  # it shows an instructor how to make the table
    else:
        table = readme.split("<!-- links:start -->\n", 1)[1].split("\n<!-- links:end -->", 1)[0]
        assert table == markdown_table(notebook_links(repo)), (
            "run: autograd-course links --repo URL --markdown"
        )
