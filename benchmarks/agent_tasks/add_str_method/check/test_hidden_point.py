from geometry import Point


def test_str():
    assert str(Point(1, 2)) == 'Point(1, 2)'
    assert str(Point(1, 2).moved(1, 1)) == 'Point(2, 3)'
