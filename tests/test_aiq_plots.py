"""The AIQ drawing helpers that decide something: the 3-D view of the space and the hull's faces."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from intellimetry.aiq.plots import draw_hull, space_3d  # noqa: E402


@pytest.fixture
def ax3d():
    fig = plt.figure()
    yield fig.add_subplot(projection="3d")
    plt.close(fig)


def test_space_3d_keeps_three_coordinates_and_pads_fewer():
    np.testing.assert_array_equal(space_3d([[1.0, 2.0, 3.0, 4.0]]), [[1.0, 2.0, 3.0]])
    np.testing.assert_array_equal(space_3d([[1.0, 2.0], [3.0, 4.0]]), [[1.0, 2.0, 0.0], [3.0, 4.0, 0.0]])


def test_a_full_hull_is_drawn_as_faces(ax3d):
    assert draw_hull(ax3d, np.eye(3), "C0") is True
    assert len(ax3d.collections) == 1


def test_a_flat_hull_draws_nothing_and_raises_nothing(ax3d):
    # three suite points on the plane z = 0 (a space with two dimensions, padded): no volume, no faces
    flat = space_3d([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    assert draw_hull(ax3d, flat, "C0") is False
    assert draw_hull(ax3d, np.zeros((0, 3)), "C0") is False
    assert len(ax3d.collections) == 0
