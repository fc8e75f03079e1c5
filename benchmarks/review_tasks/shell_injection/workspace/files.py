"""File statistics for the upload report."""

import subprocess


def line_count(path):
    """Number of lines in the file at `path`, as `wc -l` counts them."""
    output = subprocess.check_output(f"wc -l {path}", shell=True, text=True)
    return int(output.split()[0])
