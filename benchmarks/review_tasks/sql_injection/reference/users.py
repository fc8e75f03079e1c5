"""User accounts stored in SQLite."""

import sqlite3


def connect(path=":memory:"):
    conn = sqlite3.connect(path)
    conn.execute(
        "CREATE TABLE IF NOT EXISTS users (id INTEGER PRIMARY KEY, name TEXT UNIQUE, email TEXT)"
    )
    return conn


def add_user(conn, name, email):
    cursor = conn.execute("INSERT INTO users (name, email) VALUES (?, ?)", (name, email))
    conn.commit()
    return cursor.lastrowid


def find_user(conn, name):
    """The (id, name, email) row of the user called `name`, or None."""
    query = "SELECT id, name, email FROM users WHERE name = ?"
    return conn.execute(query, (name,)).fetchone()
