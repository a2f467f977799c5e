class Box[T]:
    def get(self) -> T:
        return self.x


def first[T](xs: list[T]) -> T:
    return xs[0]


@route(
    '/a',
)
@cache
def page():
    return 1


@cache
# a comment between

def spaced():
    return 2
