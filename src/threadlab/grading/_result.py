"""A grade: each check's verdict with its points and feedback, the score out of the maximum,
and the two ways a person reads it — a few plain lines, and a table in a notebook."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

__all__ = ["GradeItem", "GradeResult", "one_line"]


@dataclass(frozen=True)
class GradeItem:
    """One check of a grade."""

    name: str
    """What it checked: "called(write_file, path='/index.html')"."""
    passed: bool
    points: float
    """The points it gave: `max_points` when it passed, else 0."""
    max_points: float
    feedback: str
    """One plain line a student can act on: "write_file was never called with path=…"."""


@dataclass(frozen=True)
class GradeResult:
    """The grade of one thread (`g.grade(thread, checks)`)."""

    thread_id: str
    items: tuple[GradeItem, ...]

    @property
    def score(self) -> float:
        """The points given, over every check."""
        return sum(item.points for item in self.items)

    @property
    def max_score(self) -> float:
        """The points there were to give."""
        return sum(item.max_points for item in self.items)

    @property
    def passed(self) -> bool:
        """Whether every check passed."""
        return all(item.passed for item in self.items)

    def points(self, out_of: float | None = None) -> float:
        """The score, scaled to `out_of` when given (an nbgrader test cell's last line:
        `g.grade(...).points(out_of=2)` gives that cell partial credit)."""
        if out_of is None:
            return self.score
        return 0.0 if not self.max_score else round(self.score / self.max_score * out_of, 6)

    def __str__(self) -> str:
        lines = [f"{_number(self.score)} / {_number(self.max_score)} points ({self.thread_id})"]
        for item in self.items:
            mark = "PASS" if item.passed else "FAIL"
            worth = f"{_number(item.points)}/{_number(item.max_points)}"
            lines.append(f"  {mark} {worth}  {one_line(item.feedback)}")
        return "\n".join(lines)

    def _repr_pretty_(self, printer: object, cycle: bool) -> None:
        printer.text(str(self))  # type: ignore[attr-defined]

    def _repr_html_(self) -> str:
        # Inline styles: a notebook's own table style (right-aligned cells) wins over a class.
        left = "text-align:left;vertical-align:top;padding:2px 8px"
        rows = "".join(
            f"<tr><td style='{left};font-weight:bold;color:{_PASSED if item.passed else _FAILED}'>"
            f"{'✓' if item.passed else '✗'}<span class='tl-sr'>"
            f"{' passed' if item.passed else ' failed'}</span></td>"
            f"<td style='{left}'><code style='white-space:nowrap'>{escape(item.name)}</code></td>"
            f"<td style='{left};white-space:nowrap'>{_number(item.points)} /"
            f" {_number(item.max_points)}</td>"
            f"<td style='{left}'>{escape(item.feedback)}</td></tr>"
            for item in self.items
        )
        return (
            "<div class='tl-grade'><style>.tl-grade table{border-collapse:collapse}"
            ".tl-grade td,.tl-grade th{padding:2px 8px;text-align:left;"
            "border-bottom:1px solid var(--jp-border-color2,#ddd)}"
            ".tl-grade .tl-sr{position:absolute;width:1px;height:1px;overflow:hidden;"
            "clip:rect(0 0 0 0)}</style>"
            f"<p><strong>{_number(self.score)} / {_number(self.max_score)} points</strong>"
            f" <span>({escape(self.thread_id)})</span></p>"
            f"<table><thead><tr><th style='{left}'></th><th style='{left}'>check</th>"
            f"<th style='{left}'>points</th><th style='{left}'>feedback</th></tr>"
            f"</thead><tbody>{rows}</tbody></table></div>"
        )


_PASSED = "var(--jp-success-color1, #1a7f37)"
_FAILED = "var(--jp-error-color1, #cf222e)"


def one_line(text: str) -> str:
    """`text` as one line: what an agent named (a tool, a file) may hold line breaks and
    control characters, which would read as rows of a grade that are not there."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _number(value: float) -> str:
    return f"{value:g}"
