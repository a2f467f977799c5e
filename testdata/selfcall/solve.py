# sympy.solve-heavy script: the comprehension-self-caller shape of issue 21.
from sympy import symbols, solve, Eq, sin, cos, simplify
x, y, z = symbols('x y z')
for k in range(1, 4):
    print(solve([Eq(x + k*y - z, 1), Eq(x - y + 2*z, k), Eq(3*x + y + z, 2*k)], [x, y, z]))
    print(solve(x**3 - k*x**2 + 2*x - k, x))
print(simplify(sin(x)**2 + cos(x)**2))
