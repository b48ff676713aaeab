"""Properties of the rendered review page for any untrusted text: it stays inert (one
script, the page's own; no element, handler or URL the text did not earn) and the text
reads back as text (what the reader sees is the text, made visible)."""

from __future__ import annotations

import base64
import datetime as dt
import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from generator.models.bank import BankItem
from generator.render.environment import make_environment
from generator.render.text import neutralise
from generator.review.items import Batch, Plan, ReviewItem, Step
from generator.review.page import inline, render_batch, template_folder
from tests.render.inert import inspect

REPO = Path(__file__).resolve().parents[2]
ENV = make_environment(template_folder())
PARTS = inline(ENV)
ROW = next(
    json.loads(line)
    for line in (REPO / "bank" / "public.jsonl").read_text("utf-8").splitlines()
    if json.loads(line)["id"] == "live-003"
)
HOSTILE = st.text(
    alphabet=st.sampled_from(list("<>/\"'&=` \n\u202e\u2066ascriptonerrorimg:!-[]{}%")),
    min_size=1,
    max_size=80,
) | st.text(min_size=1, max_size=40)


def page_for(prompt: str, name: str, bank: str) -> bytes:
    item = BankItem.model_validate({**ROW, "prompt": prompt, "sources": [name]})
    step = Step("draft", name, dt.date(2026, 10, 4), comment=name)
    entry = ReviewItem(item, "Live data", "draft", (step,), heldout=False)
    review = Plan(bank=bank, bank_version="v1.2", demonstration=False, batches=())
    return render_batch(ENV, PARTS, review, Batch("v1.2-01", (entry,))).encode("utf-8")


@settings(max_examples=60)
@given(prompt=HOSTILE, name=HOSTILE.filter(lambda s: len(s) <= 200), bank=HOSTILE)
def test_untrusted_text_stays_text(prompt: str, name: str, bank: str) -> None:
    page = page_for(prompt, name, bank)
    found = inspect(page)
    assert found.count("script") == 1 and found.count("style") == 1
    assert [t for t in found.tags if t in ("img", "iframe", "object", "svg", "a", "base")] == []
    assert found.handlers == [] and found.urls == [] and found.style_attributes == []
    text = "".join(found.text)
    for planted in (prompt, name, bank):
        assert neutralise(planted) in text
    data = page.decode("utf-8")
    encoded = data.split('data-bank="', 1)[1].split('"', 1)[0]
    assert base64.b64decode(encoded).decode("utf-8") == bank
