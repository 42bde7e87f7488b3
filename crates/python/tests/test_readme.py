"""The README's Python example works as written, from the clone's root."""

import contextlib
import io
import re

from conftest import REPO


def test_the_readme_python_example_runs_as_written(monkeypatch):
    readme = (REPO / "README.md").read_text()
    section = readme.split("## Python", 1)[1]
    example = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    assert len(example.strip().splitlines()) == 5
    monkeypatch.chdir(REPO)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(example, "README.md", "exec"), {})
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("SearchResult(move='") and len(lines) == 2
    assert re.fullmatch(r"[a-i]\d[a-i]\d", lines[1]), lines[1]
