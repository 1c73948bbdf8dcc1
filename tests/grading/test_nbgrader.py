"""The lesson's exercise as an nbgrader assignment, graded by nbgrader's own CLI: the teacher's
source notebook (a solution cell, hidden test cells that call `g.grade`) is released with
`generate_assignment`; three students submit (right, wrong, half right); `autograde` runs each
submission in a kernel, and the gradebook says full points, zero, and partial credit where a
test cell gives it. Every student's run replays the teacher's recorded run: no key, no rate
limit, the same model answers for everyone."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest

pytestmark = pytest.mark.processes  # nbgrader starts a kernel per submission

COURSE = "agents101"
ASSIGNMENT = "site"
TEACHER_TOOLS = '''
@tl.tool
def search(state: tl.ThreadState, topic: str) -> str:
    """Look a topic up.

    Args:
        topic: what to look up
    """
    return f"{topic}: brewed from the leaves of Camellia sinensis"


@tl.tool
async def write_file(state: tl.ThreadState, path: str, content: str) -> str:
    """Write a file.

    Args:
        path: absolute path in the thread filesystem
        content: the file's content
    """
    await state.write_file(path, content)
    return f"wrote {len(content)} characters to {path}"
'''
SETUP = """import threadlab as tl
from threadlab import grading as g

recorded = tl.Runtime(store="recording").thread({thread_id!r})
model = tl.models.ReplayModel(recorded)  # the teacher's run, answered the same for everyone"""
RUN = """tl.define_prompt("site", prompt="You build small web pages.",
                 tools=["search", "write_file"], model=model)
rt = tl.Runtime(store="my_threads")
thread = await rt.create_thread("site")
run = await thread.send("Make a page about tea")
print(run.status)"""
PATH_TEST = """### BEGIN HIDDEN TESTS
result = g.grade(thread, [
    g.called("write_file", path="/index.html"),
    g.called_before("search", "write_file"),
    g.answer_contains("index.html"),
])
result.points(out_of=3)
### END HIDDEN TESTS"""
SAFETY_TEST = """### BEGIN HIDDEN TESTS
assert run.status == "completed", run.error  # nothing is safe about a run that never ended
assert g.grade(thread, [g.call_count("write_file", at_most=1), g.no_secret_leaked()]).passed
### END HIDDEN TESTS"""


def _cell(source: str, grade_id: str | None = None, **nbgrader: Any) -> Any:
    cell = nbformat.v4.new_code_cell(source)
    if grade_id is not None:
        cell.metadata["nbgrader"] = {
            "grade_id": grade_id, "schema_version": 3, "locked": False, "solution": False,
            "grade": False, "task": False, **nbgrader,
        }  # fmt: skip
    return cell


def source_notebook(thread_id: str) -> Any:
    return nbformat.v4.new_notebook(
        cells=[
            _cell(SETUP.format(thread_id=thread_id), "setup", locked=True),
            _cell(
                "### BEGIN SOLUTION" + TEACHER_TOOLS + "### END SOLUTION",
                "tools",
                solution=True,
            ),
            _cell(RUN, "run", locked=True),
            _cell(PATH_TEST, "path", grade=True, locked=True, points=3),
            _cell(SAFETY_TEST, "safety", grade=True, locked=True, points=1),
        ],
        metadata={
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}
        },
    )


RECORD = """import asyncio
import threadlab as tl
{tools}
model = tl.models.ScriptedModel([
    tl.models.call("search", {{"topic": "tea"}}),
    tl.models.call("write_file", {{"path": "/index.html", "content": "<h1>Tea</h1>"}}),
    tl.models.text("I wrote /index.html about tea."),
])
tl.define_prompt("site", prompt="You build small web pages.", tools=["search", "write_file"],
                 model=model)


async def main() -> None:
    rt = tl.Runtime(store="recording")
    thread = await rt.create_thread("site")
    run = await thread.send("Make a page about tea")
    assert run.status == "completed", run.error
    print(thread.id)
    rt.close()


asyncio.run(main())
"""


def record(directory: Path) -> str:
    """The teacher's run, once, in a process of its own: a model that searches, writes the
    page and says so (a real model in a class; here the steps it took), stored in
    `directory/recording` for the students' notebooks to replay."""
    script = directory / "record.py"
    script.write_text(RECORD.format(tools=TEACHER_TOOLS))
    result = subprocess.run([sys.executable, str(script)], cwd=directory, capture_output=True,
                            text=True, timeout=120)  # fmt: skip
    assert result.returncode == 0, result.stderr
    script.unlink()  # not part of the assignment
    return result.stdout.strip()


def nbgrader(course: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """nbgrader's CLI as a teacher runs it: from the environment's bin (it runs `alembic`)."""
    bin_dir = Path(sys.executable).parent
    result = subprocess.run(
        [str(bin_dir / "nbgrader"), *args, "--CourseDirectory.root=" + str(course)],
        cwd=course,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def submit(course: Path, student: str, tools: str) -> None:
    released = course / "release" / ASSIGNMENT
    target = course / "submitted" / student / ASSIGNMENT
    shutil.copytree(released, target)
    notebook = nbformat.read(target / "exercise.ipynb", as_version=4)
    (answer,) = [c for c in notebook.cells if "YOUR CODE HERE" in c.source]
    answer.source = "import threadlab as tl\n" + tools
    nbformat.write(notebook, target / "exercise.ipynb")
    (target / "timestamp.txt").write_text("2026-12-07 09:00:00.000000 UTC")


def gradebook(course: Path) -> dict[str, dict[str, float]]:
    """Each student's points by grade cell, as nbgrader's gradebook holds them."""
    script = (
        "import json, sys\n"
        "from nbgrader.api import Gradebook\n"
        "with Gradebook('sqlite:///gradebook.db') as gb:\n"
        "    found = {}\n"
        "    for student in gb.students:\n"
        f"        sub = gb.find_submission_notebook('exercise', {ASSIGNMENT!r}, student.id)\n"
        "        found[student.id] = {g.name: g.score for g in sub.grades}\n"
        "    json.dump(found, sys.stdout)\n"
    )
    result = subprocess.run([sys.executable, "-c", script], cwd=course, capture_output=True,
                            text=True, timeout=120, check=True)  # fmt: skip
    loaded: dict[str, dict[str, float]] = json.loads(result.stdout)
    return loaded


WRONG_SEARCH = TEACHER_TOOLS.replace(
    'return f"{topic}: brewed from the leaves of Camellia sinensis"', 'return "no idea"'
)
RAISES = 'raise RuntimeError("my tools are not ready")\n' + TEACHER_TOOLS
HANGS = TEACHER_TOOLS.replace(
    'return f"{topic}: brewed', 'import time; time.sleep(3600); return f"{topic}: brewed'
)
STUDENTS = ["alice", "bob", "carol", "dave", "erin"]
HALF_RIGHT = TEACHER_TOOLS.replace(
    'return f"wrote {len(content)} characters to {path}"', 'return "ok"'
)


def test_nbgrader_grades_the_path_each_student_took(tmp_path: Path) -> None:
    course = tmp_path / COURSE
    source = course / "source" / ASSIGNMENT
    source.mkdir(parents=True)
    thread_id = record(source)
    nbformat.write(source_notebook(thread_id), source / "exercise.ipynb")
    (course / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        f"c.CourseDirectory.course_id = {COURSE!r}\n"
        "c.CourseDirectory.db_students = [dict(id=s) for s in STUDENTS]\n"
        "c.Execute.timeout = 30\n"
    )
    nbgrader(course, "db", "assignment", "add", ASSIGNMENT)
    nbgrader(course, "generate_assignment", ASSIGNMENT, "--force")
    released = (course / "release" / ASSIGNMENT / "exercise.ipynb").read_text()
    assert "BEGIN HIDDEN TESTS" not in released  # the tests stay the teacher's
    assert "g.called(" not in released
    assert "Camellia" not in released  # the solution too

    submit(course, "alice", TEACHER_TOOLS)  # right: the run replays all the way
    submit(course, "bob", WRONG_SEARCH)  # search answers otherwise: the replay stops there
    submit(course, "carol", HALF_RIGHT)  # the page is written, the last answer differs
    submit(course, "dave", RAISES)  # the submission raises
    submit(course, "erin", HANGS)  # the submission never ends: nbgrader's timeout
    nbgrader(course, "autograde", ASSIGNMENT, "--force")
    grades = gradebook(course)
    assert grades["alice"] == {"path": 3.0, "safety": 1.0}
    # search answered otherwise: the replay had no answer for that, the run failed before
    # write_file — no point of the path, and none for a run that did not complete
    assert grades["bob"] == {"path": 0.0, "safety": 0.0}
    # the page was written after a search, but the replay had no answer for "ok": the run
    # failed before its last answer — two of three checks (partial credit), no safety point
    assert grades["carol"] == {"path": 2.0, "safety": 0.0}

    for student in ("dave", "erin"):
        assert grades[student] == {"path": 0.0, "safety": 0.0}
    nbgrader(course, "generate_feedback", ASSIGNMENT, "--force")
    feedback = {
        student: (course / "feedback" / student / ASSIGNMENT / "exercise.html").read_text()
        for student in ("carol", "dave", "erin")
    }
    assert "my tools are not ready" in feedback["dave"]
    assert "NameError" in feedback["erin"]  # the run's cell timed out: no thread was made
    assert "2.0 / 3.0" in feedback["carol"] or "2 / 3" in feedback["carol"]

    graded = course / "autograded" / "carol" / ASSIGNMENT / "exercise.ipynb"
    outputs = [o for c in nbformat.read(graded, as_version=4).cells
               for o in c.get("outputs", [])]  # fmt: skip
    assert not [o for o in outputs if o.get("name") == "stderr"]  # stderr would score 0
