import pathlib

import main
from shop import compute_total


def test_renamed():
    assert compute_total([1, 2], 0.5) == 4.5
    assert main.report([10]) == 'Total: 11.0'
    for name in ('shop.py', 'main.py', 'test_shop.py'):
        assert 'calc_total' not in pathlib.Path(name).read_text()
