"""Province names: how wide a name is drawn, and the box it takes with its dot.

Widths are measured with the advance widths of DejaVu Sans (the font the pictures use, shipped
by Debian's fonts-dejavu-core), so that where names go (worked out once with the drawn map, see
``tools/map_places.py``) does not depend on the machine.
"""

from __future__ import annotations

from .layout import HALO, LABEL_SIZE

Box = tuple[float, float, float, float]
"""left, top, right, bottom"""

# Advance widths of DejaVu Sans (Book and Bold), characters 32..126, in thousandths of an em.
_BOOK = (
    318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337, 636, 636, 636, 636, 636, 636,
    636, 636, 636, 636, 337, 337, 838, 838, 838, 531, 1000, 684, 686, 698, 770, 632, 575, 775, 752, 295, 295, 656,
    557, 863, 748, 787, 603, 787, 695, 635, 611, 732, 684, 989, 685, 611, 685, 390, 337, 390, 838, 500, 500, 613,
    635, 550, 635, 615, 352, 635, 634, 278, 278, 579, 278, 974, 634, 612, 635, 635, 411, 521, 392, 634, 592, 818,
    592, 592, 525, 636, 337, 636, 838,
)
_BOLD = (
    348, 456, 521, 838, 696, 1002, 872, 306, 457, 457, 523, 838, 380, 415, 380, 365, 696, 696, 696, 696, 696, 696,
    696, 696, 696, 696, 400, 400, 838, 838, 838, 580, 1000, 774, 762, 734, 830, 683, 683, 821, 837, 372, 372, 775,
    637, 995, 837, 850, 733, 850, 770, 720, 682, 812, 774, 1103, 771, 724, 725, 457, 365, 457, 838, 500, 500, 675,
    716, 593, 716, 678, 435, 716, 712, 343, 343, 665, 343, 1042, 712, 687, 716, 716, 493, 595, 478, 712, 652, 924,
    645, 652, 582, 712, 365, 712, 838,
)


def text_width(text: str, size: float, *, bold: bool = False) -> float:
    """The width of ``text`` set in DejaVu Sans at ``size`` (characters it has no width for
    count as a wide letter)."""
    table = _BOLD if bold else _BOOK
    return size * sum(table[o - 32] if 32 <= (o := ord(c)) < 127 else 700 for c in text) / 1000


def short_name(pid: str) -> str:
    """The name drawn where the full name does not fit: the province's id, capitalised."""
    return pid[:1].upper() + pid[1:]


def name_box(x: float, y: float, text: str) -> Box:
    """The box a name drawn with its middle at ``x``, ``y`` takes with its halo."""
    half = text_width(text, LABEL_SIZE) / 2 + HALO
    return x - half, y - 0.5 * LABEL_SIZE - HALO, x + half, y + 0.5 * LABEL_SIZE + HALO


def baseline(y: float) -> float:
    """The baseline of a name whose middle is at height ``y``."""
    return y + 0.36 * LABEL_SIZE


__all__ = ["Box", "baseline", "name_box", "short_name", "text_width"]
