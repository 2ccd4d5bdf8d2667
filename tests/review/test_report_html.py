"""The report page (``review/report_html.py``): the chart's bars as the data says, the tables,
every text of the store escaped, nothing external, the same bytes for the same input."""

from __future__ import annotations

from datetime import date
from html.parser import HTMLParser

from self_improve.review.curve import compute, top_recurring
from self_improve.review.efficacy import efficacy
from self_improve.review.report_html import chart_svg, render_page, scale, text
from self_improve.store.entry import Entry, parse_text
from tests.helpers import TODAY, day, entry_text
from tests.review.test_curve import ARCHIVED, B, C, DAILY

HOSTILE = '<script>alert("x")</script> & \'quoted\''
EVIL = parse_text(entry_text(
    "ERR-20260201-aaa", HOSTILE, status="promoted", promoted="CLAUDE.md", pattern_key='deps.x/"><img src=y>',
    occurrences=[(12, "1a"), (8, "2b"), (8, "2b"), (1, "3c")], meta=[("Promoted-On", day(6)), ("Measured-Helpful", "4")],
)).entries[0]


class Elements(HTMLParser):
    """Every start tag with its attributes, and the text of the page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.texts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)

    def handle_data(self, data: str) -> None:
        self.texts.append(data)


def parse(page: str) -> Elements:
    found = Elements()
    found.feed(page)
    found.close()
    return found


def page_of(entries: list[Entry], project: str = "app") -> str:
    curve = compute(entries, [ARCHIVED], DAILY, date(2026, 2, 16), TODAY, "week", retired_total=2)
    return render_page(project, curve, top_recurring(entries, curve.since, TODAY),
                       [item.as_json() for item in efficacy(entries, [ARCHIVED])])


def test_one_bar_per_series_and_period_with_its_value_and_height() -> None:
    curve = compute([EVIL, B, C], [ARCHIVED], DAILY, date(2026, 2, 16), TODAY, "week", retired_total=2)
    assert scale(curve) == 40.0  # the largest count, 5 (recorded in W08), fills 200 px
    bars = [attrs for tag, attrs in parse(chart_svg(curve)).tags if tag == "rect"]
    assert [(b["data-series"], b["data-period"], b["data-value"], b["height"], b["y"]) for b in bars] == [
        ("recorded", "2026-W08", "5", "200", "10"), ("repeats", "2026-W08", "3", "120", "90"),
        ("fixed", "2026-W08", "0", "0", "210"), ("promoted", "2026-W08", "0", "0", "210"),
        ("retired", "2026-W08", "0", "0", "210"),
        ("recorded", "2026-W09", "3", "120", "90"), ("repeats", "2026-W09", "3", "120", "90"),
        ("fixed", "2026-W09", "2", "80", "130"), ("promoted", "2026-W09", "1", "40", "170"),
        ("retired", "2026-W09", "1", "40", "170"),
    ]
    assert [b["x"] for b in bars] == ["50", "59", "68", "77", "86", "104", "113", "122", "131", "140"]
    svg = next(attrs for tag, attrs in parse(chart_svg(curve)).tags if tag == "svg")
    assert (svg["data-scale"], svg["width"], svg["height"], svg["viewbox"]) == ("40", "158", "280", "0 0 158 280")
    assert '<rect class="bar s-fixed" data-series="fixed" data-period="2026-W09" data-value="2" x="122" y="130" ' \
        'width="8" height="80" fill="#27ae60"><title>2026-W09: fixed in time 2</title></rect>' in chart_svg(curve)


def test_an_empty_store_draws_zero_bars() -> None:
    curve = compute([], [], {}, date(2026, 2, 16), TODAY, "week")
    bars = [attrs for tag, attrs in parse(chart_svg(curve)).tags if tag == "rect"]
    assert len(bars) == 10 and {b["height"] for b in bars} == {"0"} and scale(curve) == 0
    page = render_page("app", curve, [], [])
    assert '<p class="none" id="recurring-none">No mistake recurred in this range.</p>' in page
    assert '<p class="none" id="efficacy-none">No promoted rule.</p>' in page


def test_every_store_text_is_escaped() -> None:
    page = page_of([EVIL, B, C], project="<b>proj</b>")
    assert "<script" not in page.lower() and "<img" not in page.lower() and "<b>" not in page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#x27;quoted&#x27;" in page
    assert "<code>deps.x/&quot;&gt;&lt;img src=y&gt;</code>" in page
    assert "<title>self-improve report: &lt;b&gt;proj&lt;/b&gt;</title>" in page
    found = parse(page)
    assert {tag for tag, _ in found.tags} <= {
        "html", "head", "meta", "title", "style", "body", "h1", "h2", "p", "ul", "li", "span", "svg", "line", "text",
        "g", "rect", "table", "thead", "tbody", "tr", "th", "td", "code", "br",
    }
    assert sum(1 for t in found.texts if t == HOSTILE) == 2  # the summary, in both tables, as text
    assert text("\udcff<") == "\ufffd&lt;"  # an undecodable byte shown as U+FFFD, then escaped


def test_tables() -> None:
    page = page_of([EVIL, B, C])
    found = parse(page)
    rows = [attrs["data-id"] for tag, attrs in found.tags if tag == "tr" and "data-id" in attrs]
    # Top recurring: EVIL 4 in range, B 2 (5 in all), C 1 (3 in all); efficacy: EVIL only.
    assert rows == ["ERR-20260201-aaa", "LRN-20260202-bbb", "ERR-20260203-ccc", "ERR-20260201-aaa"]
    assert '<td class="n">4</td><td class="n">4</td></tr>' in page
    # Before: 3 occurrences in [02-17, 02-23), sessions 1a and 2b; after: 1 (the 28th) in the
    # sessions since the 23rd: 3c, 4d, 5e.
    assert '<td class="before">3 in 2 sessions (1.50 per session)</td><td class="after">1 in 3 sessions (0.33 per session)</td>' \
        '<td class="n">3</td><td class="n">0 / 4</td><td class="n">0 / 0</td></tr>' in page
    assert '<tr class="total"><th scope="row">total</th><td class="n">8</td><td class="n">6</td><td class="n">2</td>' \
        '<td class="n">1</td><td class="n">1</td></tr>' in page
    assert "<li>not shown, no day known: mistakes recorded 5, repeats 4, fixed in time 1, rules retired 1</li>" in page


def test_self_contained_and_deterministic() -> None:
    page = page_of([EVIL, B, C])
    assert page == page_of([EVIL, B, C])
    assert page.startswith('<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
                           '<meta name="generator" content="self-improve report">\n')
    found = parse(page)
    # No attribute that fetches anything: every element's attributes are of these names.
    names = {name for _, attrs in found.tags for name in attrs}
    assert names <= {"lang", "charset", "name", "content", "class", "id", "role", "width", "height", "viewbox", "xmlns",
                     "data-scale", "data-by", "aria-labelledby", "x1", "y1", "x2", "y2", "stroke", "x", "y", "text-anchor",
                     "dominant-baseline", "data-period", "data-series", "data-value", "fill", "transform", "style",
                     "scope", "data-id"}, names
    assert {attrs["style"] for _, attrs in found.tags if "style" in attrs} == {
        f"background:{colour}" for colour in ("#c0392b", "#e67e22", "#27ae60", "#2e6fd8", "#7f8c8d")
    }
    assert [attrs["xmlns"] for _, attrs in found.tags if "xmlns" in attrs] == ["http://www.w3.org/2000/svg"]  # a name, never fetched
    style = page[page.index("<style>"):page.index("</style>")]
    assert "url(" not in style and "@import" not in style
