from shop import calc_total


def report(prices):
    return f'Total: {calc_total(prices, 0.1)}'
