"""The supply-centre chart of a game: one line per power over the seasons, as inline SVG text.

A pure function of the variant and the counts; every line carries ``id="series-<POWER>"`` and
``class="series power-<POWER>"``, every point a ``<title>`` a reader can hover over. The chart is
drawn :data:`WIDTH` units wide with its text at :data:`TEXT` units: shrunk to a phone's width
(about 360 pixels) the text stays 9 pixels or more.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from xml.sax.saxutils import escape, quoteattr

from adjudicator.vocab import Power
from adjudicator.variant import Variant

from bot.render import palette

_FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
WIDTH = 540
TEXT = 15.0
"""The chart's width and its text's size, in its own units."""


def _f(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".")


def centre_chart(variant: Variant, history: Sequence[tuple[str, Mapping[str, int]]], *,
                 width: int = WIDTH, height: int = 330) -> str:
    """Supply centres per power after each season, as an SVG line chart.

    :param variant: gives the powers, their colours and the centre count that wins.
    :param history: ``(label, centres per power)`` in order, the first usually the opening.
    :param width: width of the picture in pixels.
    :param height: height of the picture in pixels.
    """
    powers = list(variant.powers)
    left, right, top, bottom = 40.0, 66.0, 16.0, 66.0
    plot_w, plot_h = width - left - right, height - top - bottom
    most = max([variant.victory_centers // 2] + [n for _, counts in history for n in counts.values()])
    y_max = max(4, most + 1)
    n = len(history)

    def x_of(i: int) -> float:
        return left + (plot_w * i / (n - 1) if n > 1 else plot_w / 2)

    def y_of(v: int) -> float:
        return top + plot_h * (1 - v / y_max)

    title = f"Supply centres per power, {variant.title}"
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="centre-chart" role="img" width="{width}" '
           f'height="{height}" viewBox="0 0 {width} {height}" aria-label={quoteattr(title)}>',
           f"<title>{escape(title)}</title>",
           f'<rect x="0" y="0" width="{width}" height="{height}" fill="#FFFFFF"/>']
    step = max(1, y_max // 8)
    for v in range(0, y_max + 1, step):
        y = y_of(v)
        out.append(f'<line x1="{_f(left)}" y1="{_f(y)}" x2="{_f(left + plot_w)}" y2="{_f(y)}" stroke="#E3E3E3"/>')
        out.append(f'<text x="{_f(left - 6)}" y="{_f(y + 4)}" text-anchor="end" font-family="{_FONT}" '
                   f'font-size="{_f(TEXT)}" fill="{palette.INK}">{v}</text>')
    if variant.victory_centers <= y_max:
        y = y_of(variant.victory_centers)
        out.append(f'<line class="victory" x1="{_f(left)}" y1="{_f(y)}" x2="{_f(left + plot_w)}" y2="{_f(y)}" '
                   f'stroke="{palette.INK}" stroke-dasharray="6 4"/>')
    label_every = max(1, (n + 7) // 8)
    for i, (label, _) in enumerate(history):
        if i % label_every and i != n - 1:
            continue
        x = x_of(i)
        out.append(f'<text x="{_f(x)}" y="{_f(top + plot_h + 16)}" font-family="{_FONT}" font-size="{_f(TEXT)}" '
                   f'fill="{palette.INK}" text-anchor="end" transform="rotate(-40 {_f(x)} {_f(top + plot_h + 16)})">'
                   f"{escape(label)}</text>")
    out.append(f'<line x1="{_f(left)}" y1="{_f(top + plot_h)}" x2="{_f(left + plot_w)}" y2="{_f(top + plot_h)}" '
               f'stroke="{palette.INK}"/>')
    ends: list[tuple[float, Power, str]] = []
    xs, labels = [_f(x_of(i)) for i in range(n)], [escape(label) for label, _ in history]  # (the same for every power)
    for k, power in enumerate(powers):
        colour = variant.powers[power].colour or palette.NEUTRAL
        values = [counts.get(power, 0) for _, counts in history]
        # powers with equal counts would hide each other's lines: each is drawn a little apart
        nudge = (k - (len(powers) - 1) / 2) * min(2.5, plot_h / y_max / (len(powers) + 1))
        ys = [_f(y_of(v) + nudge) for v in values]
        points = " ".join(f"{x},{y}" for x, y in zip(xs, ys))
        name = escape(power)
        dots = "".join(f'<circle cx="{x}" cy="{y}" r="3" fill="{colour}"><title>{name} after {label}: {v}</title></circle>'
                       for x, y, label, v in zip(xs, ys, labels, values))
        out.append(f'<g id="series-{power}" class="series power-{power}" data-values="{" ".join(map(str, values))}">'
                   f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2.5" '
                   f'stroke-linejoin="round"/>{dots}</g>')
        ends.append((y_of(values[-1]) if values else y_of(0), power, colour))
    # labels at the right end, nudged apart so that equal counts stay readable
    ends.sort()
    last_y = -1e9
    for y, power, colour in ends:
        y = max(y + 5, last_y + TEXT + 1)
        last_y = y
        out.append(f'<text class="end-label" x="{_f(left + plot_w + 8)}" y="{_f(y)}" font-family="{_FONT}" '
                   f'font-size="{_f(TEXT)}" font-weight="bold" fill="{palette.INK}">'
                   f'<tspan fill="{colour}">\u25A0</tspan> {escape(power)}</text>')
    out.append("</svg>")
    return "\n".join(out)
