x = sum(range(10))
