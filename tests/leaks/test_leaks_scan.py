"""Leak detection in plain text and markup: whole, partial, short, and non-leaks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from generator.errors import UsageError
from generator.leaks import (
    Leak,
    LeakConfig,
    LeakIndex,
    Secret,
    canonical,
    scan_file,
    scan_paths,
    scan_text,
    tokens,
)
from tests.leaks.leak_samples import CHINESE, PROMPT, RESPONSE, SHORT, keys, words


def test_whole_prompt_in_plain_text_is_found_with_its_line(index: LeakIndex) -> None:
    text = "# Notes\n\nSome intro.\n" + PROMPT + "\nMore text.\n"
    leaks = scan_text(index, text, "notes.md")
    assert leaks == [
        Leak(
            source="notes.md",
            line=4,
            secret_key="item:h-0003",
            kind="prompt",
            excerpt_len=len(canonical(PROMPT)),
            whole=True,
            tokens=54,
        )
    ]


def test_finding_never_contains_the_secret_text(index: LeakIndex) -> None:
    leak = scan_text(index, PROMPT, "a.txt")[0]
    rendered = f"{leak} {leak!r}"
    assert "ferry" not in rendered.lower() and "tromsø" not in rendered.lower()
    assert str(leak) == (
        "a.txt:1: held-out prompt item:h-0003 appears (the whole text, 316 characters)"
    )
    assert "Tromsø" not in repr(Secret("k", "prompt", PROMPT))
    problem = leak.problem()
    assert (problem.path, problem.line, problem.rule) == ("a.txt", 1, "holdout")
    assert str(problem).startswith(str(leak)) and problem.fix.startswith("remove the held-out")


def test_case_whitespace_and_punctuation_changes_do_not_hide_a_leak(index: LeakIndex) -> None:
    mangled = RESPONSE.upper().replace(" ", "\u00a0\n   \t").replace(";", " ;").replace("'", "’")
    leaks = scan_text(index, "prefix " + mangled + " suffix", "x.txt")
    assert [(leak.secret_key, leak.whole) for leak in leaks] == [
        ("draw:vol-001/acme-m1/h-0003/A/2", True)
    ]


def test_partial_leak_of_fifteen_words_is_found(index: LeakIndex) -> None:
    fifteen = words(RESPONSE, 16, 15)
    assert fifteen.startswith("aboard. One third") and len(tokens(fifteen)) == 15
    [leak] = scan_text(index, "The model wrote: " + fifteen + " and then stopped.", "results.md")
    assert leak.secret_key == "draw:vol-001/acme-m1/h-0003/A/2"
    assert (leak.whole, leak.tokens, leak.excerpt_len) == (False, 15, len(canonical(fifteen)))


def test_eleven_shared_words_are_below_the_default_threshold(index: LeakIndex) -> None:
    text = "zzz " + words(PROMPT, 20, 11) + " zzz"
    assert scan_text(index, text, "x.txt") == []
    strict = LeakIndex.build([Secret("item:h-0003", "prompt", PROMPT)], config=LeakConfig(8, 5))
    assert keys(scan_text(strict, text, "x.txt")) == {"item:h-0003"}


def test_leak_in_html_with_escaping_and_tags_between_words(index: LeakIndex) -> None:
    escaped = (
        '<td class="q">Starting from 312 passengers, after Skjerv&oslash;y there are 312 '
        "- 47 + 19 = 284 people<br>aboard. One <span class='hl'>third</span> of 284 is "
        "not a whole num<wbr>ber, so the premise that exactly one third trans&shy;fers "
        "cannot hold literally; I would round to 95 transferring and 189 staying, but "
        "the timetable says nothing about the coastal express connection.</td>"
    )
    page = "<!DOCTYPE html>\n<html><body>\n<table><tr>\n" + escaped + "\n</tr></table>"
    [leak] = scan_text(index, page, "site/volumes/vol-001/leaderboard.html")
    assert (leak.secret_key, leak.whole, leak.line) == ("draw:vol-001/acme-m1/h-0003/A/2", True, 4)


def test_html_entities_for_quotes_and_ampersands_are_unescaped() -> None:
    secret = 'Tom\'s answer was "fine & dandy" but <b>never</b> verified by anyone.'
    index = LeakIndex.build([Secret("item:h-1", "prompt", secret)])
    page = "<p>Tom&#39;s answer was &quot;fine &amp; dandy&quot; but &lt;b&gt;never&lt;/b&gt;"
    page += " verified by anyone.</p>"
    assert keys(scan_text(index, page, "card.html")) == {"item:h-1"}


def test_secret_in_an_attribute_or_comment_is_a_leak(index: LeakIndex) -> None:
    page = f'<abbr title="{SHORT}">x</abbr>\n<!-- {words(PROMPT, 0, 20)} -->'
    assert keys(scan_text(index, page, "a.svg")) == {"item:h-0009", "item:h-0003"}


def test_markup_is_not_stripped_from_plain_text_files(index: LeakIndex) -> None:
    text = "reply with the <b>single</b> word banana"
    assert scan_text(index, text, "a.txt") == []
    assert keys(scan_text(index, text, "a.html")) == {"item:h-0009"}


def test_json_escaped_secret_is_found_in_jsonl(tmp_path: Path, index: LeakIndex) -> None:
    line = json.dumps({"id": "p-1", "response": CHINESE + "\n" + RESPONSE}, ensure_ascii=True)
    path = tmp_path / "bank_v1_public.jsonl"
    path.write_text('{"id": "p-0"}\n' + line + "\n", encoding="utf-8")
    leaks = scan_file(index, path)
    assert {(leak.secret_key, leak.line, leak.whole) for leak in leaks} == {
        ("item:h-0007", 2, True),
        ("draw:vol-001/acme-m1/h-0003/A/2", 2, True),
    }


def test_chinese_without_spaces_is_matched_by_characters(index: LeakIndex) -> None:
    inside = "报告摘要：" + CHINESE[10:24] + "。其余内容与此无关。"
    [leak] = scan_text(index, inside, "report.md")
    assert (leak.secret_key, leak.tokens, leak.whole) == ("item:h-0007", 14, False)
    assert scan_text(index, "报告：" + CHINESE[10:21] + "。", "report.md") == []


def test_japanese_and_halfwidth_forms_are_normalised() -> None:
    secret = "このモデルは存在しない論文を引用してはいけません。カタカナの確認です。"
    index = LeakIndex.build([Secret("item:h-ja", "prompt", secret)])
    halfwidth = "ﾃｽﾄ: モデルは存在しない論文を引用してはいけません。ｶﾀｶﾅの確認"
    assert keys(scan_text(index, halfwidth, "x.txt")) == {"item:h-ja"}


def test_short_secret_is_matched_whole_only(index: LeakIndex) -> None:
    assert keys(scan_text(index, "Please REPLY with the single word: Banana!", "x")) == {
        "item:h-0009"
    }
    assert scan_text(index, "reply with the single word apple", "x") == []
    assert scan_text(index, "reply with the single wordbanana", "x") == []


def test_too_short_secrets_are_listed_not_matched() -> None:
    index = LeakIndex.build([Secret("draw:a", "response", "No."), Secret("draw:b", "response", "")])
    assert index.unscannable == ("draw:a", "draw:b")
    assert scan_text(index, "No. no no.", "x") == []


def test_public_item_sharing_a_short_phrase_is_not_a_leak() -> None:
    held_out = "Answer in one sentence. Which moon of Neptune orbits in the opposite direction?"
    index = LeakIndex.build([Secret("item:h-2", "prompt", held_out)])
    public = "Answer in one sentence. Which planet in the solar system has the most moons?"
    assert scan_text(index, public, "bank/v1.jsonl") == []


def test_ignore_set_suppresses_text_that_is_public_anyway() -> None:
    boilerplate = "I cannot browse the internet or check live data, so I cannot confirm this."
    held_out = boilerplate + " The museum closes at five on Sundays in winter."
    secret = Secret("draw:x/y/h-4/A/1", "response", held_out)
    plain = LeakIndex.build([secret])
    ignoring = LeakIndex.build([secret], ignore=["Sure. " + boilerplate])
    page = "Public answer: " + boilerplate
    assert keys(scan_text(plain, page, "p.md")) == {"draw:x/y/h-4/A/1"}
    assert scan_text(ignoring, page, "p.md") == []
    assert keys(scan_text(ignoring, held_out, "p.md")) == {"draw:x/y/h-4/A/1"}


def test_identical_secrets_are_each_reported() -> None:
    draws = [Secret(f"draw:v/m/h-1/A/{n}", "response", RESPONSE) for n in range(3)]
    index = LeakIndex.build(draws)
    assert len(index.owners) == 1
    assert keys(scan_text(index, RESPONSE, "x")) == {d.key for d in draws}


def test_repeated_leak_is_reported_at_each_place(index: LeakIndex) -> None:
    text = PROMPT + "\n\nunrelated words here\n\n" + PROMPT
    assert [leak.line for leak in scan_text(index, text, "x")] == [1, 5]


def test_scan_paths_walks_directories_and_skips_only_real_images(
    tmp_path: Path, index: LeakIndex
) -> None:
    (tmp_path / "site" / "sub").mkdir(parents=True)
    (tmp_path / "site" / "sub" / "b.md").write_text("clean\n" + SHORT, encoding="utf-8")
    (tmp_path / "site" / "a.png").write_bytes(b"\x89PNG\r\n\x1a\n" + SHORT.encode())
    (tmp_path / "site" / "blob").write_bytes(b"\x00\x01" + SHORT.encode())
    (tmp_path / "site" / "a.txt").write_text(PROMPT, encoding="utf-8")
    seen: list[Path] = []
    leaks = scan_paths(index, [tmp_path / "site"], root=tmp_path, on_file=seen.append)
    assert [(leak.source, leak.line, leak.secret_key) for leak in leaks] == [
        ("site/a.txt", 1, "item:h-0003"),
        ("site/blob", 1, "item:h-0009"),  # a NUL byte does not make a file binary
        ("site/sub/b.md", 2, "item:h-0009"),
    ]
    assert [p.name for p in seen] == ["a.png", "a.txt", "blob", "b.md"]


def test_missing_file_is_an_input_error(tmp_path: Path, index: LeakIndex) -> None:
    with pytest.raises(Exception, match="no such file"):
        scan_paths(index, [tmp_path / "nope.html"])


def test_config_is_validated() -> None:
    with pytest.raises(UsageError, match="min_tokens"):
        LeakConfig(window=4, min_tokens=5)


def test_passage_shared_by_two_secrets_reports_both() -> None:
    shared = "the ledger shows four transfers between the same two accounts within one hour"
    first = Secret("draw:v/m/h-5/A/1", "response", "First, " + shared + ", which is odd.")
    second = Secret("draw:v/m/h-5/B/3", "response", "Note that " + shared + " on Monday.")
    index = LeakIndex.build([first, second])
    leaks = scan_text(index, "Quoted: " + shared + ".", "x.md")
    assert {(leak.secret_key, leak.tokens, leak.whole) for leak in leaks} == {
        (first.key, 13, False),
        (second.key, 13, False),
    }


def test_every_secret_is_found_in_the_private_store_itself(secrets: list[Secret]) -> None:
    index = LeakIndex.build(secrets)
    store = "\n\n".join(json.dumps({"key": s.key, "text": s.text}) for s in secrets)
    leaks = scan_text(index, store, "private/heldout.jsonl")
    assert {leak.secret_key for leak in leaks if leak.whole} == {s.key for s in secrets}


def test_walk_skips_version_control_folders(tmp_path: Path, index: LeakIndex) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "COMMIT_EDITMSG").write_text(SHORT, encoding="utf-8")
    (tmp_path / "README.md").write_text(SHORT, encoding="utf-8")
    leaks = scan_paths(index, [tmp_path], root=tmp_path)
    assert [leak.source for leak in leaks] == ["README.md"]
