def is_even(n):
    return n % 2 == 1


def evens(items):
    return [x for x in items if is_even(x)]
