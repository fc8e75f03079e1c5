from users import add_user, connect, find_user


def _db():
    conn = connect()
    add_user(conn, "alice", "alice@example.com")
    add_user(conn, "O'Brien", "ob@example.com")
    return conn


def test_real_names_still_found():
    conn = _db()
    assert find_user(conn, "alice")[1:] == ("alice", "alice@example.com")
    assert find_user(conn, "carol") is None


def test_name_with_a_quote_is_data():
    assert find_user(_db(), "O'Brien")[1:] == ("O'Brien", "ob@example.com")


def test_injection_matches_nothing():
    conn = _db()
    assert find_user(conn, "x' OR '1'='1") is None
    assert find_user(conn, "' UNION SELECT 1, 'admin', 'x' --") is None
