"""The README's Python example runs, and prints what the README says it prints."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def python_blocks() -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", README.read_text(encoding="utf-8"), re.S | re.M)


def test_the_readme_python_example_runs_as_written():
    blocks = python_blocks()
    assert blocks, "the README has no ```python block"
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for n, block in enumerate(blocks, 1):
        test = parser.get_doctest(block, {}, f"README.md python block {n}", str(README), 0)
        assert test.examples, f"python block {n} of the README has no >>> example"
        result = runner.run(test)
        assert result.failed == 0, f"{result.failed} of {result.attempted} lines of README python block {n} failed"
