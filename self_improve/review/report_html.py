"""``self-improve report --html``: one self-contained page, the learning curve and what it means.

The page has no external asset and no script: inline CSS and an inline SVG chart, so it opens
offline, from a mail attachment or a CI artefact, the same everywhere. Its sections:

- the learning curve (``review/curve.py``) as a grouped bar chart, one ``<rect class="bar">``
  per series and period (zeros included, height 0), each with ``data-series``, ``data-period``
  and ``data-value``: what a test or a script can check against the data; the chart's scale
  (pixels per unit) is ``data-scale`` on the ``<svg>``. The same numbers as a table below it,
  for a screen reader and for copying; the legend's notes say what each series cannot show;
- the top recurring mistakes in the range (``curve.top_recurring``);
- each promoted rule's efficacy (``review/efficacy.py``: occurrences per session before and
  after Promoted-On, credit marked and measured), as ``stats`` prints it.

Everything that comes from the store is untrusted (a cloned repository writes it) and goes
through :func:`text`: decoded for display, then HTML-escaped, quotes included. The output is a
pure function of its inputs (no clock, no path of this machine): the same store and ``today``
give the same bytes.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from self_improve.output import display_text
from self_improve.review.curve import LABELS, SERIES, Curve, Recurring, notes

GENERATOR = "self-improve report"  # the page's <meta name="generator">: how report knows a page of its own
COLOURS = {"recorded": "#c0392b", "repeats": "#e67e22", "fixed": "#27ae60", "promoted": "#2e6fd8", "retired": "#7f8c8d"}
PLOT_HEIGHT = 200
BAR_WIDTH = 8
BAR_GAP = 1
GROUP_GAP = 10
LEFT = 40  # room for the axis labels
TOP = 10
BOTTOM = 70  # room for the period labels (rotated)

CSS = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #222; margin: 2em auto; max-width: 72em; padding: 0 1em; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
h2 { font-size: 1.15em; margin-top: 2em; border-bottom: 1px solid #ddd; padding-bottom: 0.2em; }
p.meta { color: #666; margin-top: 0; }
table { border-collapse: collapse; margin: 0.5em 0; }
th, td { border: 1px solid #ddd; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
th { background: #f5f5f5; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
code { font-size: 0.92em; }
td code { overflow-wrap: anywhere; }
td code.id { white-space: nowrap; }
ul.legend { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 0.4em 1.5em; }
ul.legend span.swatch { display: inline-block; width: 0.9em; height: 0.9em; margin-right: 0.35em; vertical-align: -0.1em; }
ul.notes { color: #555; font-size: 0.92em; }
svg text { font: 11px system-ui, sans-serif; fill: #444; }
p.none { color: #666; font-style: italic; }
""".strip()


def text(value: object) -> str:
    """Untrusted text as HTML: decoded for display, then escaped (``&<>"'``)."""
    return html.escape(display_text(str(value)), quote=True)


def _number(value: float) -> str:
    """A coordinate, short and stable: at most two decimals, no trailing zeros."""
    shown = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if shown in ("", "-0") else shown


# ---- the chart -------------------------------------------------------------------------------------


def scale(curve: Curve) -> float:
    """Pixels per unit: the largest count of any series fills the plot's height."""
    largest = max((max(curve.series[name], default=0) for name in SERIES), default=0)
    return PLOT_HEIGHT / largest if largest else 0.0


def chart_svg(curve: Curve) -> str:
    """The grouped bar chart: per period, one bar per series, side by side."""
    per_unit = scale(curve)
    group = len(SERIES) * (BAR_WIDTH + BAR_GAP) - BAR_GAP
    width = LEFT + len(curve.periods) * (group + GROUP_GAP) + GROUP_GAP
    height = TOP + PLOT_HEIGHT + BOTTOM
    base = TOP + PLOT_HEIGHT
    largest = max((max(curve.series[name], default=0) for name in SERIES), default=0)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" id="curve" role="img" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" data-scale="{_number(per_unit)}" data-by="{curve.by}" '
        f'aria-labelledby="curve-title">',
        f'<title id="curve-title">Learning curve by {curve.by}, {curve.since.isoformat()} to {curve.today.isoformat()}</title>',
        f'<line class="axis" x1="{LEFT}" y1="{base}" x2="{width}" y2="{base}" stroke="#999"/>',
        f'<line class="axis" x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{base}" stroke="#999"/>',
        f'<text x="{LEFT - 4}" y="{base}" text-anchor="end" dominant-baseline="middle">0</text>',
    ]
    if largest:
        parts.append(f'<text x="{LEFT - 4}" y="{TOP}" text-anchor="end" dominant-baseline="middle">{largest}</text>')
        parts.append(f'<line x1="{LEFT}" y1="{TOP}" x2="{width}" y2="{TOP}" stroke="#eee"/>')
    for index, period in enumerate(curve.periods):
        x0 = LEFT + GROUP_GAP + index * (group + GROUP_GAP)
        parts.append(f'<g class="period" data-period="{period.label}">')
        for position, name in enumerate(SERIES):
            value = curve.series[name][index]
            bar_height = value * per_unit
            x = x0 + position * (BAR_WIDTH + BAR_GAP)
            parts.append(
                f'<rect class="bar s-{name}" data-series="{name}" data-period="{period.label}" data-value="{value}" '
                f'x="{x}" y="{_number(base - bar_height)}" width="{BAR_WIDTH}" height="{_number(bar_height)}" '
                f'fill="{COLOURS[name]}"><title>{period.label}: {LABELS[name]} {value}</title></rect>'
            )
        label_x = x0 + group / 2
        parts.append(
            f'<text class="label" x="{_number(label_x)}" y="{base + 8}" text-anchor="end" '
            f'transform="rotate(-45 {_number(label_x)} {base + 8})">{period.label}</text>'
        )
        parts.append("</g>")
    parts.append("</svg>")
    return "\n".join(parts)


def _legend() -> str:
    items = "".join(
        f'<li><span class="swatch" style="background:{COLOURS[name]}"></span>{LABELS[name]}</li>' for name in SERIES
    )
    return f'<ul class="legend">{items}</ul>'


def curve_table(curve: Curve) -> str:
    head = "".join(f"<th>{LABELS[name]}</th>" for name in SERIES)
    rows = []
    for index, period in enumerate(curve.periods):
        cells = "".join(f'<td class="n">{curve.series[name][index]}</td>' for name in SERIES)
        rows.append(f'<tr><th scope="row">{period.label}</th>{cells}</tr>')
    totals = "".join(f'<td class="n">{curve.total(name)}</td>' for name in SERIES)
    rows.append(f'<tr class="total"><th scope="row">total</th>{totals}</tr>')
    return (
        f'<table id="curve-data"><thead><tr><th>{curve.by}</th>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


# ---- the tables ------------------------------------------------------------------------------------


def recurring_table(items: Sequence[Recurring]) -> str:
    if not items:
        return '<p class="none" id="recurring-none">No mistake recurred in this range.</p>'
    rows = []
    for item in items:
        entry = item.entry
        key = f"<code>{text(entry.pattern_key)}</code>" if entry.pattern_key else ""
        rows.append(
            f'<tr data-id="{text(entry.id)}"><td><code class="id">{text(entry.id)}</code></td><td>{key}</td>'
            f'<td>{text(entry.summary)}</td><td>{text(entry.status)}</td>'
            f'<td class="n">{item.in_range}</td><td class="n">{item.total}</td></tr>'
        )
    return (
        '<table id="recurring"><thead><tr><th>ID</th><th>Pattern-Key</th><th>summary</th><th>status</th>'
        "<th>in range</th><th>in all</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def _period(period: dict[str, Any] | None) -> str:
    if period is None:
        return "unknown"
    rate = period["per_session"]
    shown = f"{rate:.2f}" if rate is not None else "n/a"
    sessions = period["sessions"]
    return f"{period['occurrences']} in {sessions} session{'s' if sessions != 1 else ''} ({shown} per session)"


def efficacy_table(items: Sequence[dict[str, Any]]) -> str:
    """From ``RuleEfficacy.as_json()``, the shape ``stats --json`` prints."""
    if not items:
        return '<p class="none" id="efficacy-none">No promoted rule.</p>'
    rows = []
    for item in items:
        key = f"<br><code>{text(item['pattern_key'])}</code>" if item["pattern_key"] else ""
        promoted = text(item["promoted_on"]) if item["promoted_on"] else "unknown (no Promoted-On)"
        since = "unknown" if item["sessions_since"] is None else str(item["sessions_since"])
        helpful, harmful = item["helpful"], item["harmful"]
        rows.append(
            f'<tr data-id="{text(item["id"])}"><td><code class="id">{text(item["id"])}</code>{key}</td>'
            f'<td>{text(item["summary"])}</td><td>{promoted}</td><td>{text(item["target"] or "")}</td>'
            f'<td class="before">{_period(item["before"])}</td><td class="after">{_period(item["after"])}</td>'
            f'<td class="n">{since}</td>'
            f'<td class="n">{int(helpful["marked"])} / {int(helpful["measured"])}</td>'
            f'<td class="n">{int(harmful["marked"])} / {int(harmful["measured"])}</td></tr>'
        )
    return (
        '<table id="efficacy"><thead><tr><th>rule</th><th>summary</th><th>promoted on</th><th>in</th>'
        "<th>before</th><th>after</th><th>sessions since</th><th>helpful marked / measured</th>"
        "<th>harmful marked / measured</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


# ---- the page --------------------------------------------------------------------------------------


def render_page(project: str, curve: Curve, recurring: Sequence[Recurring], efficacy: Sequence[dict[str, Any]]) -> str:
    """The whole page. ``project``: a name for the title (untrusted: escaped like the rest)."""
    notes_html = "".join(f"<li>{text(note)}</li>" for note in notes(curve))
    span = f"{curve.since.isoformat()} to {curve.today.isoformat()}, by {curve.by}"
    return "\n".join([
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f'<meta name="generator" content="{GENERATOR}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>self-improve report: {text(project)}</title>",
        f"<style>\n{CSS}\n</style>",
        "</head>",
        "<body>",
        f"<h1>self-improve report: {text(project)}</h1>",
        f'<p class="meta">{span}</p>',
        '<h2 id="curve-heading">Learning curve</h2>',
        _legend(),
        chart_svg(curve),
        curve_table(curve),
        f'<ul class="notes">{notes_html}</ul>',
        '<h2 id="recurring-heading">Top recurring mistakes</h2>',
        recurring_table(recurring),
        '<h2 id="efficacy-heading">Efficacy per promoted rule</h2>',
        '<p class="meta">Occurrences of the rule\'s mistake per session of the project, before and '
        "after its Promoted-On day (that day counts as after); helpful and harmful as marked "
        "(<code>self-improve mark</code>) and as measured by the hooks.</p>",
        efficacy_table(efficacy),
        "</body>",
        "</html>",
        "",
    ])
