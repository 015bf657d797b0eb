"""The ROC figure: a line through scikit-learn's points, each detector's operating point on it."""

import numpy as np
import pytest

from explorer.evaluation import statistics
from explorer.render import figures


def _on_polyline(x: float, y: float, xs: np.ndarray, ys: np.ndarray) -> bool:
    for x0, y0, x1, y1 in zip(xs, ys, xs[1:], ys[1:]):
        if min(x0, x1) - 1e-9 <= x <= max(x0, x1) + 1e-9 and min(y0, y1) - 1e-9 <= y <= max(y0, y1) + 1e-9:
            if abs((x1 - x0) * (y - y0) - (y1 - y0) * (x - x0)) < 1e-9:  # collinear with the segment
                return True
    return False


@pytest.mark.parametrize("seed", range(5))
def test_every_thresholds_operating_point_lies_on_the_drawn_curve(seed):
    rng = np.random.default_rng(seed)
    labels = rng.random(60) < 0.4
    scores = np.round(np.clip(rng.normal(0.4 + 0.2 * labels, 0.2), 0, 1), 2)  # ties included
    curve = statistics.roc(labels, scores)
    figure = figures.roc_figure({"rouge": curve}, operating_points={})
    line = next(trace for trace in figure.data if trace.name.startswith("rouge"))
    assert line.line.shape in (None, "linear")  # straight segments, not steps
    xs, ys = np.asarray(line.x), np.asarray(line.y)
    for threshold in np.linspace(0, 1, 101):
        counts = statistics.confusion(labels, scores, threshold)
        assert _on_polyline(counts.false_positive_rate, counts.true_positive_rate, xs, ys), threshold
