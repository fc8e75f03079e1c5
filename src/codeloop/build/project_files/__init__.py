"""Files build writes into a generated project as they are (never imported by codeloop)."""
