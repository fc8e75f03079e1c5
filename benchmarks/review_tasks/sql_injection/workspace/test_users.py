from users import add_user, connect, find_user


def test_find_existing_user():
    conn = connect()
    user_id = add_user(conn, "alice", "alice@example.com")
    assert find_user(conn, "alice") == (user_id, "alice", "alice@example.com")


def test_unknown_user_is_none():
    assert find_user(connect(), "bob") is None
