"""``check --junit/--markdown``: gates as JUnit suites CI systems read, and a PR comment."""

from __future__ import annotations

import json
from pathlib import Path

from junitparser import Error, Failure, JUnitXml

from generator.ci_reports import CiCase, CiSuite, junit, markdown, md_text
from generator.gates import NAMES
from tests.conftest import CliRun


def test_check_writes_junit_and_markdown(cli: CliRun, tmp_path: Path) -> None:
    out, md = tmp_path / "check.xml", tmp_path / "check.md"
    result = cli("check", "vol-001", "--json", "--junit", str(out), "--markdown", str(md))
    report = json.loads(result.stdout)
    xml = JUnitXml.fromfile(str(out))
    suites = {s.name: s for s in xml}
    assert list(suites) == [f"check.{n}" for n in NAMES]
    errors = sum(g["errors"] for g in report["gates"])
    assert xml.failures == errors and xml.errors == 0
    for gate in report["gates"]:
        cases = list(suites[f"check.{gate['gate']}"])
        failed = [c for c in cases if any(isinstance(r, Failure) for r in c.result)]
        assert len(failed) == gate["errors"], gate["gate"]
    verdict = "passed" if report["passed"] else "FAILED"
    assert md.read_text("utf-8").startswith(f"### probepress check vol-001: {verdict}\n")
    assert result.exit_code == (0 if report["passed"] else 1)


def test_unreadable_input_is_a_junit_error(cli: CliRun, root: Path, tmp_path: Path) -> None:
    (root / "bundles" / "vol-001" / "volume.yaml").write_text("id: [\n", "utf-8")
    out = tmp_path / "check.xml"
    result = cli("check", "vol-001", "--junit", str(out))
    assert result.exit_code == 2
    xml = JUnitXml.fromfile(str(out))
    (case,) = [c for s in xml for c in s]
    assert isinstance(case.result[0], Error)
    assert "volume.yaml" in case.result[0].message


def test_junit_escapes_control_characters_and_is_deterministic() -> None:
    suites = [CiSuite("s", (CiCase("a\x1b[31m", "fail", "bad\x00byte", "x\u202ey"),))]
    text = junit("t", suites)
    assert "\x1b" not in text and "\x00" not in text and "\\x1b" in text
    assert text == junit("t", suites)
    assert 'failures="1"' in text


def test_markdown_is_inert() -> None:
    assert md_text("<img src=x onerror=alert(1)>") == "&lt;img src=x onerror=alert(1)&gt;"
    assert md_text("[a](javascript:x) | `b` *c*") == "\\[a\\](javascript:x) \\| \\`b\\` \\*c\\*"
    text = markdown("t", True, [CiSuite("s|x", (CiCase("c", "pass"),))])
    assert "| s\\|x | 1 | 0 | 0 | 0 |" in text


def assert_junit_shape(text: str) -> None:
    """What the Ant/Jenkins JUnit schema requires of what we write: ``testsuites`` of
    ``testsuite`` (name, tests, failures, errors, skipped, time; counts that add up) of
    ``testcase`` (classname, name, time) holding at most one failure, error or skipped."""
    import xml.etree.ElementTree as ET

    root = ET.fromstring(text)
    assert root.tag == "testsuites"
    for suite in root:
        assert suite.tag == "testsuite"
        assert {"name", "tests", "failures", "errors", "skipped", "time"} <= set(suite.attrib)
        cases = list(suite)
        assert all(c.tag == "testcase" for c in cases)
        assert int(suite.get("tests", "")) == len(cases)
        for tag, attr in (("failure", "failures"), ("error", "errors"), ("skipped", "skipped")):
            assert int(suite.get(attr, "")) == sum(c.find(tag) is not None for c in cases)
        for case in cases:
            assert {"classname", "name", "time"} <= set(case.attrib)
            outcomes = [e for e in case if e.tag in ("failure", "error", "skipped")]
            assert len(outcomes) <= 1 and all("message" in e.attrib for e in outcomes)
            float(case.get("time", ""))


def test_every_report_has_the_junit_shape(cli: CliRun, root: Path, tmp_path: Path) -> None:
    out = tmp_path / "audit.xml"
    cli("audit", "vol-001", "--junit", str(out))
    assert_junit_shape(out.read_text("utf-8"))
    assert_junit_shape(junit("t", [CiSuite("s", (CiCase("c", "error", "m", "d"),))]))
