from greetings import greet


def test_greet():
    assert greet('Ann') == 'Hello, Ann!'
    assert greet('Ann', greeting='Hi') == 'Hi, Ann!'
