"""Shopping cart helpers."""


def add_item(name, quantity=1, cart=None):
    """Add `quantity` of `name` to `cart` (a list of (name, quantity) pairs); return it."""
    if cart is None:
        cart = []
    cart.append((name, quantity))
    return cart


def cart_size(cart):
    return sum(quantity for _, quantity in cart)
