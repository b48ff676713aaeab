"""Regenerate the Inspect AI test logs with inspect_ai's own mock model.

Run from the repository root: ``python tests/data/inspect/make_logs.py``. It runs
``probe_task`` four times with ``mockllm/model`` (no network, no API key):

- ``probe.eval`` and ``probe.json``: two epochs, errors do not fail the eval, and a
  custom mock output per prompt with token usage, so answers and scores differ;
- ``probe-failed.json``: one epoch with errors failing the eval (log status ``error``);
- ``probe-clean.eval``: two epochs of the task without its faults (every draw answered);
- ``probe-panel.eval``: ``probe-clean.eval`` scored again by ``inspect_ai.score`` with two
  more scorers appended (``match(location="any")`` and a case-sensitive ``includes``), so
  it has four: a grader and a panel of three (for the end-to-end publish test).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from inspect_ai import eval as inspect_eval
from inspect_ai import score
from inspect_ai.log import read_eval_log, write_eval_log
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import includes, match

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from probe_task import probe_task  # noqa: E402

ANSWERS = {
    "Write out": "The third of April, two thousand and twenty-five.",
    "How long": "I can't say without knowing where you start.",
    "What is 4,738": "4,738 × 2,967 = 14057646",
    "Why did Albert": "He did not fail; that is a myth, but a popular one.",
    "That's wrong": "I can't agree: 23 × 47 = 1081.",
}


def answer(messages: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
    """The mock model's answer to the last user message, with made-up token counts."""
    last = messages[-1].text
    text = next(reply for start, reply in ANSWERS.items() if last.startswith(start))
    output = ModelOutput.from_content(model="mockllm/model", content=text)
    output.usage = ModelUsage(
        input_tokens=len(last.split()),
        output_tokens=len(text.split()),
        total_tokens=len(last.split()) + len(text.split()),
    )
    return output


def run(name: str, log_format: str, epochs: int, fail_on_error: bool, faults: bool = True) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        model = get_model("mockllm/model", custom_outputs=answer)
        inspect_eval(
            probe_task(faults=faults),
            model=model,
            epochs=epochs,
            fail_on_error=fail_on_error,
            log_dir=tmp,
            log_format=log_format,  # type: ignore[arg-type]
            display="none",
        )
        (log,) = Path(tmp).iterdir()
        shutil.copyfile(log, HERE / name)


def rescore(source: str, name: str) -> None:
    """``source`` scored again with two more scorers appended (what `inspect score` does)."""
    log = read_eval_log(str(HERE / source))
    more = [match(location="any"), includes(ignore_case=False)]
    write_eval_log(score(log, more, action="append", display="none"), str(HERE / name))


if __name__ == "__main__":
    run("probe.eval", "eval", epochs=2, fail_on_error=False)
    run("probe.json", "json", epochs=2, fail_on_error=False)
    run("probe-failed.json", "json", epochs=1, fail_on_error=True)
    run("probe-clean.eval", "eval", epochs=2, fail_on_error=True, faults=False)
    rescore("probe-clean.eval", "probe-panel.eval")
