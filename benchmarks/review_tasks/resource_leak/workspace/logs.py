"""Reading the application's log files."""


def read_errors(path):
    """The lines of the log file at `path` that contain ERROR, without their newlines."""
    log = open(path, encoding="utf-8")
    return [line.rstrip("\n") for line in log if "ERROR" in line]


def count_lines(path):
    with open(path, encoding="utf-8") as log:
        return sum(1 for _ in log)
