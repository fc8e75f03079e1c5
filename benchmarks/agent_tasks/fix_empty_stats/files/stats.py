"""Summary numbers of a list of measurements."""


def mean(values):
    """The average of values; None when values is None or empty."""
    return sum(values) / len(values)


def median(values):
    """The middle value (the mean of the two middle ones for an even count); None when values
    is None or empty."""
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2


def summary(values):
    """count, min, max, mean and median of values; each None (count 0) when there are none."""
    return {"count": len(values), "min": min(values), "max": max(values),
            "mean": mean(values), "median": median(values)}
