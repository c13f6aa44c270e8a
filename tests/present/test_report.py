"""Exports and reports (ofc_audit.session.exports, ofc_audit.present.report): safe with hostile
names,
faithful round trips, the files the session writes."""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import json
import math
import re
from html.parser import HTMLParser
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pyarrow as pa  # noqa: E402
import pyarrow.csv as pacsv  # noqa: E402
import pytest  # noqa: E402
from pandas.testing import assert_frame_equal  # noqa: E402

from ofc_audit.present import report  # noqa: E402
from ofc_audit.present.report import (  # noqa: E402
    PLAYER_KEYS,
    SessionSummaries,
    players_document,
    players_text,
    render_charts,
    render_html,
    render_markdown,
    write_session,
    write_session_json,
)
from ofc_audit.replay.results import Finding, Mismatch  # noqa: E402
from ofc_audit.session.exports import (  # noqa: E402
    FORMULA_PREFIXES,
    cell_text,
    dumps,
    guard_formulas,
    markdown_table,
    md_escape,
    money_text,
    records,
    write_csv,
    write_json,
    write_json_from_parquet,
    write_json_records,
    write_parquet,
)
from ofc_audit.session.tables import SessionTables, TableBuilder, build_tables, plain_labels  # noqa: E402
from tests.session.test_summaries import session  # noqa: E402
from tests.session.test_tables import ALICE, FOUL, KK_FH, P, Rejected, hand_result  # noqa: E402

SCRIPT = "<script>alert(1)</script>"
FORMULA = '=HYPERLINK("x")'
IMG = "<img src=x onerror=alert(1)>"


def hostile_tables() -> SessionTables:
    """Names that try HTML, formulas, Markdown tables; a table name with markup too."""
    return build_tables([
        hand_result("H1", [P(SCRIPT, 1, KK_FH), P(FORMULA, 2, ALICE)], table=IMG),
        hand_result("H2", [P(SCRIPT, 1, FOUL), P("a|b*c", 2, KK_FH), P("+cmd", 3, ALICE)],
                    table=IMG,
                    violations=[Finding("R-ACT-2", 9, SCRIPT, f"{SCRIPT} placed 3 cards")]),
        Rejected("@evil.txt", 3, 1, "-2+3 is not a header <script>x</script>"),
    ])


def written(tmp_path: Path, tables: SessionTables | None = None) -> Path:
    tables = tables or hostile_tables()
    write_session(tables, SessionSummaries.of(tables), tmp_path)
    return tmp_path


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


# -- HTML -------------------------------------------------------------------------------------


def test_html_of_a_script_named_player_has_no_script_element(tmp_path: Path) -> None:
    page = (written(tmp_path) / "report.html").read_text(encoding="utf-8")
    parser = Tags()
    parser.feed(page)
    # The page's one script is its own (sorting, filtering), inline, and the only one the
    # Content-Security-Policy lets run (by its hash); the names are text.
    scripts = [attrs for tag, attrs in parser.tags if tag == "script"]
    assert scripts == [{}]
    own = (Path(report.__file__).parent / "templates" / "report.js").read_text("utf-8")
    assert page.count("<script") == 1 and f"<script>{own}</script>" in page
    digest = base64.b64encode(hashlib.sha256(own.encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page  # shown, as text
    # The only images are the embedded charts; the table name's <img> is text.
    images = [attrs for tag, attrs in parser.tags if tag == "img"]
    assert images and all((a["src"] or "").startswith("data:image/png;base64,")
                          for a in images)
    assert not any(k.startswith("on") for _, attrs in parser.tags for k in attrs)
    assert "&lt;img src=x onerror=alert(1)&gt;" in page
    # Links are the page's own anchors: a name never becomes a link target.
    hrefs = [a["href"] or "" for tag, a in parser.tags if tag == "a"]
    assert hrefs and all(h.startswith("#") for h in hrefs)


def test_html_is_self_contained_and_styled(tmp_path: Path) -> None:
    page = (written(tmp_path, session()) / "report.html").read_text(encoding="utf-8")
    parser = Tags()
    parser.feed(page)
    assert not [a for tag, a in parser.tags if tag in ("link", "iframe")]
    assert not [a for tag, a in parser.tags if tag == "script" and "src" in a]
    srcs = [a.get("src") or "" for _, a in parser.tags if "src" in a]
    assert srcs and all(s.startswith("data:") for s in srcs)
    assert "<style>" in page and page.startswith("<!DOCTYPE html>")
    assert '"Segoe UI"' in page  # the style sheet is not HTML-escaped
    headings = re.findall(r'<h2 id="(\w+)">', page)
    assert headings == ["results", "attention", "players", "charts", "tables"]


# -- CSV --------------------------------------------------------------------------------------


def test_csv_of_a_formula_named_player_cannot_run(tmp_path: Path) -> None:
    out = written(tmp_path)
    with open(out / "csv" / "players.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    names = [row["name"] for row in rows]
    assert "'" + FORMULA in names and FORMULA not in names
    assert "'+cmd" in names
    # Numbers stay numbers: negative points are not "guarded".
    assert any(row["points"].startswith("-") for row in rows)
    for path in (out / "csv").glob("*.csv"):
        with open(path, newline="", encoding="utf-8") as f:
            for row in csv.reader(f):
                for cell in row:
                    if cell.startswith(FORMULA_PREFIXES):
                        float(cell)  # only a number may start like a formula


def test_csv_rejected_and_violations_are_guarded(tmp_path: Path) -> None:
    out = written(tmp_path)
    rejected = pd.read_csv(out / "csv" / "rejected.csv")
    assert rejected["file"].tolist() == ["'@evil.txt"]
    assert rejected["message"].tolist() == ["'-2+3 is not a header <script>x</script>"]
    assert rejected["line"].tolist() == [3]


def test_guard_formulas_touches_only_strings() -> None:
    frame = pd.DataFrame({
        "s": pd.array(["=1+1", "+a", "-b", "@c", "\td", "\re", "ok", None], dtype="string"),
        "o": pd.Series(["=x", 5, None, "-1", "a", "b", "c", "d"], dtype=object),
        "c": pd.Categorical(["=z", "y", "=z", "y", "y", "y", "y", "y"]),
        "i": pd.array([-6, 1, None, 3, 4, 5, 6, 7], dtype="Int64"),
        "f": [-1.5, 2.0, -3.0, 0.0, 1.0, 1.0, 1.0, 1.0],
    })
    got = guard_formulas(frame)
    assert got["s"].tolist()[:7] == ["'=1+1", "'+a", "'-b", "'@c", "'\td", "'\re", "ok"]
    assert got["s"].isna().tolist()[-1]
    assert got["o"].tolist()[:4] == ["'=x", 5, None, "'-1"]
    assert got["c"].tolist()[:2] == ["'=z", "y"]
    assert_frame_equal(got[["i", "f"]], frame[["i", "f"]])
    assert frame["s"].tolist()[0] == "=1+1"  # the input is not modified


# -- Markdown ---------------------------------------------------------------------------------


def test_markdown_escapes_names(tmp_path: Path) -> None:
    text = (written(tmp_path) / "summary.md").read_text(encoding="utf-8")
    assert "<script" not in text and "<img" not in text
    assert "a\\|b\\*c" in text
    # Every row of the standings has as many unescaped cell separators as the header.
    table = text.split("## Who won and lost")[1].split("##")[1]
    rows = [line for line in table.splitlines() if line.startswith("|")]
    assert len(rows) == 2 + 4  # header, rule, four players at the points table
    counts = {len(re.findall(r"(?<!\\)\|", line)) for line in rows}
    assert len(counts) == 1


def test_markdown_findings_carry_the_rule_title_and_readable_fields(tmp_path: Path) -> None:
    tables = build_tables([
        hand_result("H3", [P("alice", 1, KK_FH), P("bob", 2, ALICE)],
                    violations=[Finding("R-ACT-2", 9, "bob", "bob placed 3 cards")],
                    mismatches=[Mismatch("alice", "stack_after", 95, 96, 12)]),
    ])
    text = (written(tmp_path, tables) / "summary.md").read_text(encoding="utf-8")
    violations = text.split("## Violations")[1].split("##")[0]
    assert "| hand id | file | rule | title | line | player | message |" in violations
    assert ("| H3 | s.txt | R-ACT-2 | How many cards are placed and discarded per street | 9 "
            "| bob | bob placed 3 cards |") in violations
    mismatches = text.split("## Recorded mismatches")[1].split("##")[0]
    assert "| alice | stack after | 95 | 96 |" in mismatches and "stack_after" not in mismatches
    # The files for programs keep the field names of CLI.md, and no title column.
    with open(tmp_path / "csv" / "violations.csv", newline="", encoding="utf-8") as f:
        assert "title" not in next(csv.reader(f))
    with open(tmp_path / "csv" / "mismatches.csv", newline="", encoding="utf-8") as f:
        assert [row["field"] for row in csv.DictReader(f)] == ["stack_after"]


def test_md_escape() -> None:
    assert md_escape("a|b") == "a\\|b"
    assert md_escape("<b>*x*</b>") == "&lt;b&gt;\\*x\\*&lt;/b&gt;"
    assert md_escape("two\nlines") == "two lines"


def test_markdown_table_alignment() -> None:
    frame = pd.DataFrame({"name": ["x"], "points": [-3], "foul_rate": [0.25]})
    assert markdown_table(frame).splitlines() == [
        "| player | points | foul rate |",
        "|---|---:|---:|",
        "| x | -3 | 25.0% |",
    ]


# -- cell text --------------------------------------------------------------------------------


def test_cell_text() -> None:
    assert cell_text(pd.NA, "points") == "-"
    assert cell_text(float("nan"), "foul_rate") == "-"
    assert cell_text(0.125, "foul_rate") == "12.5%"
    assert cell_text(-1.2000000000000002, "money") == "-1.20"
    assert cell_text(True, "valid") == "yes"
    assert money_text(0.005) == "0.005" and money_text(12.5) == "12.50"
    assert money_text(1234.5) == "1,234.50"


# -- JSON, Parquet ----------------------------------------------------------------------------


def test_players_document_keys_and_types() -> None:
    s = SessionSummaries.of(session())
    document = players_document(s.players)
    assert list(document) == ["players"]
    carol = document["players"][0]
    assert tuple(carol)[: len(PLAYER_KEYS)] == PLAYER_KEYS
    assert {k: carol[k] for k in PLAYER_KEYS} == {
        "name": "carol", "hands": 2, "points": 28, "money": 1.8, "currency": "EUR",
        "royalties": 29, "fouls": 0, "fantasylands": 1,
    }
    json.dumps(document)  # plain Python values only
    bob_usd = document["players"][4]
    assert bob_usd["name"] == "bob" and bob_usd["foul_rate"] == 1.0
    assert document["players"][3]["fantasyland_rate"] == 1.0


def test_parquet_and_json_round_trip(tmp_path: Path) -> None:
    tables = session()
    out = written(tmp_path, tables)
    for name, frame in tables.items():
        back = pd.read_parquet(out / "parquet" / f"{name}.parquet")
        assert_frame_equal(back, frame, check_dtype=False, check_categorical=False)
        # The files have the label columns as the plain strings they stand for.
        plain = plain_labels(frame)
        assert list(back.dtypes.astype(str)) == list(plain.dtypes.astype(str)), name
    seats = json.loads((out / "json" / "seats.json").read_text(encoding="utf-8"))
    assert len(seats) == len(tables.seats)
    hidden = [row for row in seats if row["hand_id"] == "H3" and row["name"] == "bob"][0]
    assert hidden["points"] is None and hidden["top"] is None and hidden["fouled"] is None
    document = json.loads((out / "session.json").read_text(encoding="utf-8"))
    assert set(document) == {"players", "head_to_head", "matches", "totals", "rejected"}
    assert document["totals"]["hands"] == 4


def test_write_session_files(tmp_path: Path) -> None:
    out = tmp_path / "new" / "dir"
    tables = session()
    paths = write_session(tables, SessionSummaries.of(tables), out)
    names = {p.relative_to(out).as_posix() for p in paths}
    for table in ("hands", "seats", "pairs", "violations", "mismatches", "rejected",
                  "players", "head_to_head", "matches", "royalties", "totals"):
        for fmt in ("csv", "parquet", "json"):
            assert f"{fmt}/{table}.{fmt}" in names
    for chart in ("cumulative_EUR_by_hand", "cumulative_EUR_over_time",
                  "cumulative_USD_by_hand", "royalties", "rates", "points_histogram",
                  "biggest_hands"):
        assert f"charts/{chart}.png" in names and f"charts/{chart}.svg" in names
    assert {"report.html", "summary.md", "session.json"} <= names
    assert all(p.stat().st_size > 0 for p in paths)


def test_empty_session_reports(tmp_path: Path) -> None:
    tables = TableBuilder().build()
    s = SessionSummaries.of(tables)
    write_session(tables, s, tmp_path)
    assert "None." in (tmp_path / "report.html").read_text(encoding="utf-8")
    assert players_text(s.players) == "no hands"
    assert players_document(s.players) == {"players": []}


def test_render_functions_without_writing() -> None:
    tables = session()
    s = SessionSummaries.of(tables)
    charts = render_charts(tables, s)
    assert [c.name for c in charts] == [
        "cumulative_EUR_by_hand", "cumulative_EUR_over_time", "cumulative_USD_by_hand",
        "cumulative_USD_over_time", "royalties", "rates", "points_histogram", "biggest_hands"]
    assert all(c.svg.startswith(b"<?xml") and c.png.startswith(b"\x89PNG") for c in charts)
    assert "settled money" in charts[0].title and "EUR" in charts[0].title
    page = render_html(tables, s, charts)
    assert page.count("data:image/png;base64,") == len(charts)
    md = render_markdown(tables, s, charts)
    assert "](charts/cumulative_EUR_by_hand.png)" in md
    # The answer comes first, in the same order as the page.
    order = ["## Who won and lost", "## Who owes whom", "## Hands that need attention",
             "## Players", "## Charts"]
    assert [md.index(h) for h in order] == sorted(md.index(h) for h in order)


def test_players_text() -> None:
    text = players_text(SessionSummaries.of(session()).players)
    lines = text.splitlines()
    assert lines[0].split()[:5] == ["player", "cur", "hands", "money", "stack"]
    assert lines[2].split()[:6] == ["carol", "EUR", "2", "1.80", "28", "28"]
    assert "50.0" in lines[4]  # alice EUR foul rate as a percentage


@pytest.mark.parametrize("prefix", FORMULA_PREFIXES)
def test_every_formula_prefix_is_guarded(prefix: str, tmp_path: Path) -> None:
    name = prefix + "x"
    tables = build_tables([hand_result("H", [P(name, 1, KK_FH), P("bob", 2, ALICE)])])
    write_session(tables, SessionSummaries.of(tables), tmp_path, with_charts=False)
    with open(tmp_path / "csv" / "seats.csv", newline="", encoding="utf-8") as f:
        names = [row["name"] for row in csv.DictReader(f)]
    assert names == ["'" + name, "bob"]


# -- big tables, written a piece at a time ----------------------------------------------------


def odd_frame() -> pd.DataFrame:
    """A cell of every kind the tables and summaries hold, missing ones included."""
    return pd.DataFrame({
        "text": pd.array(['a"b\\c\n', None, "é€😀\x01", "=1+2", "-x"], dtype="string"),
        "real": [1.5, np.nan, math.inf, -0.0, 1e-9],
        "count": pd.array([1, None, -3, 2**40, 0], dtype="Int64"),
        "flag": pd.array([True, None, False, True, False], dtype="boolean"),
        "plain_flag": [True, False, True, False, True],
        "whole": np.array([1, 2, 3, 4, 5], dtype=np.int64),
        "category": pd.Categorical(["x", None, "y", "x", "y"]),
        "time": pd.to_datetime(["2026-01-01 10:00:00", None, "2026-02-03 00:00:00",
                                "2026-03-04 00:01:00", "2026-03-04 00:01:02"], utc=True),
        "mixed": ["a", 1, None, 2.5, True],
    })


@pytest.mark.parametrize("rows", [1, 2, 1000])
def test_json_records_text_is_what_dumps_writes(rows: int) -> None:
    frame = odd_frame()
    for level, wrap in ((0, lambda x: x), (1, lambda x: {"key": x})):
        out = io.StringIO()
        if level:
            out.write('{\n  "key": ')
        write_json_records(out, frame, level, rows)
        if level:
            out.write("\n}")
        assert out.getvalue() == dumps(wrap(records(frame))), level
    empty = io.StringIO()
    write_json_records(empty, frame.head(0), 0, rows)
    assert empty.getvalue() == "[]"


def test_session_json_is_what_dumps_writes(tmp_path: Path) -> None:
    for tables in (session(), hostile_tables(), TableBuilder().build()):
        s = SessionSummaries.of(tables)
        write_session_json(tmp_path / "session.json", tables, s)
        document = players_document(s.players) | {
            "head_to_head": records(s.head_to_head),
            "matches": records(s.matches),
            "totals": records(s.totals)[0],
            "rejected": records(tables.rejected),
        }
        assert (tmp_path / "session.json").read_text(encoding="utf-8") == dumps(document) + "\n"


def test_tables_written_in_pieces_are_the_whole_table_written(tmp_path: Path) -> None:
    frames = dict(hostile_tables().items()) | {"odd": odd_frame().drop(columns="mixed")}
    for name, frame in frames.items():
        whole = tmp_path / f"{name}.whole.csv"
        table = pa.Table.from_pandas(guard_formulas(frame), preserve_index=False)
        pacsv.write_csv(table, whole, write_options=pacsv.WriteOptions(quoting_style="needed"))
        assert write_csv(frame, tmp_path / f"{name}.csv", rows=2).read_bytes() == \
            whole.read_bytes(), name
        text = frame.to_json(orient="records", date_format="iso", force_ascii=False)
        assert write_json(frame, tmp_path / f"{name}.json", rows=2).read_text(
            encoding="utf-8") == text, name


def test_json_read_back_from_parquet_is_the_frames_json(tmp_path: Path) -> None:
    """session --jobs N: the helper writes each table's JSON from its Parquet file, two rows
    at a time here; missing values, row categories and times must come back as they were."""
    seen: set[str] = set()
    for tables in (session(), hostile_tables()):
        for name, frame in tables.items():
            if frame.empty:
                continue
            for column in frame.columns:
                if frame[column].isna().any():
                    seen.add(str(frame[column].dtype))
            source = write_parquet(frame, tmp_path / f"{name}.parquet")
            got = write_json_from_parquet(source, tmp_path / f"{name}.json",
                                          dict(frame.dtypes), rows=2)
            whole = write_json(frame, tmp_path / f"{name}.whole.json")
            assert got.read_bytes() == whole.read_bytes(), name
    assert {"Int64", "boolean", "category", "string"} <= seen


def test_a_helper_process_writes_the_same_files(tmp_path: Path) -> None:
    tables = hostile_tables()
    s = SessionSummaries.of(tables)
    alone = write_session(tables, s, tmp_path / "one")
    helped = write_session(tables, s, tmp_path / "two", jobs=2)
    assert [p.relative_to(tmp_path / "one") for p in alone] == \
        [p.relative_to(tmp_path / "two") for p in helped]
    for a, b in zip(alone, helped, strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name


def test_an_error_in_the_helper_process_is_raised_here(tmp_path: Path) -> None:
    tables = hostile_tables()
    (tmp_path / "json").write_text("a file where the JSON folder goes")
    with pytest.raises(OSError) as raised:
        write_session(tables, SessionSummaries.of(tables), tmp_path, jobs=2)
    assert raised.value.filename == str(tmp_path / "json")


def test_players_text_fits_a_terminal_width() -> None:
    players = SessionSummaries.of(session()).players
    full = players_text(players)
    narrow = players_text(players, width=60)
    table, note = narrow.rsplit("\n", 1)
    assert max(len(line) for line in table.splitlines()) <= 60
    assert table.splitlines()[0].split()[:4] == ["player", "cur", "hands", "money"]
    assert note.startswith("(left out to fit 60 columns: ")
    assert note.endswith("FL %; see the reports)")
    assert players_text(players, width=500) == full


def test_players_text_lines_up_an_emoji_or_cjk_name_in_display_cells() -> None:
    """Issue 20.7: an emoji name shifted its row by one column (len counted 1 character for
    a two-cell glyph)."""
    from ofc_audit.common.textfmt import display_width
    names = ["\U0001f600 ace", "\u674e\u660e"]
    tables = build_tables([hand_result("H", [P(names[0], 1, KK_FH), P(names[1], 2, ALICE)])])
    text = players_text(SessionSummaries.of(tables).players)
    lines = text.splitlines()
    cur = display_width(lines[0][:lines[0].index("cur")])
    for line in lines[2:]:
        currency = line.index(" EUR") + 1 if " EUR" in line else line.index(" USD") + 1
        assert display_width(line[:currency]) == cur, line
    assert len({display_width(line.rstrip()) for line in lines[2:]}) == 1
    narrow = players_text(SessionSummaries.of(tables).players, width=40)
    assert max(display_width(line) for line in narrow.splitlines()[:-1]) <= 40


def test_a_short_session_draws_its_charts_without_a_warning(
        tmp_path: Path, recwarn: pytest.WarningsChecker) -> None:
    # Two hands minutes apart (the third in conflict): the results chart over time has too
    # short a range for matplotlib's date ticks; it falls back to its own ticks and said so
    # on the user's stderr, a UserWarning no one can act on.
    from ofc_audit.cli.app import app
    from tests.support.histories import cli_runner

    sample = Path(__file__).resolve().parents[2] / "sample_histories" / "classic_4p_session.txt"
    lines = sample.read_text(encoding="utf-8").splitlines(keepends=True)
    third = [i for i, line in enumerate(lines) if line.startswith("OFC Hand")][2]
    changed = tmp_path / "changed.txt"
    changed.write_text("".join(lines[third:]).replace("Seat 1: ", "Seat 1: x", 1),
                       encoding="utf-8")
    result = cli_runner().invoke(app, ["session", str(sample), str(changed),
                                       "--out", str(tmp_path / "o")])
    assert result.exit_code == 1, result.output  # the conflict
    assert list((tmp_path / "o" / "charts").glob("cumulative_*_over_time.png"))
    assert not [w for w in recwarn.list if "AutoDateLocator" in str(w.message)]
    assert "Warning" not in result.stderr


def test_the_json_writer_killed_is_an_error_that_says_so(tmp_path: Path) -> None:
    """The session's JSON writer process (``report._Helper``) killed before it has finished
    (``kill -9``, or the system when memory runs out): the error says how it ended, exit 2
    (it was a ``RuntimeError`` and its traceback)."""
    import os
    import signal

    from ofc_audit.common.errors import EngineError
    from ofc_audit.present import report

    blocked = tmp_path / "pieces.parquet"
    os.mkfifo(blocked)  # the writer waits on it for good: killed while it works
    helper = report._Helper([(blocked, tmp_path / "json" / "hands.json", {})])
    try:
        os.kill(helper.process.pid, signal.SIGKILL)
        with pytest.raises(EngineError, match="ended by signal 9 before it had finished"):
            helper.join()
    finally:
        if helper.process.is_alive():
            helper.stop()
