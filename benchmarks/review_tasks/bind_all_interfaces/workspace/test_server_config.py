from server_config import server_address


def test_port_from_environment(monkeypatch):
    monkeypatch.setenv("PORT", "9001")
    assert server_address()[1] == 9001
