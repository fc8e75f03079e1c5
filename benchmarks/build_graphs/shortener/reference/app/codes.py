ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def encode(n: int) -> str:
    if n == 0:
        return ALPHABET[0]
    digits = []
    while n:
        n, rest = divmod(n, 62)
        digits.append(ALPHABET[rest])
    return "".join(reversed(digits))


def decode(code: str) -> int:
    value = 0
    for char in code:
        index = ALPHABET.find(char)
        if index < 0:
            raise ValueError(f"not a base-62 character: {char!r}")
        value = value * 62 + index
    return value
