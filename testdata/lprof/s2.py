import asyncio, json, re
from pygments.lexers import PythonLexer
@profile
def never(x):
    return x + 1
@profile
async def coro(n):
    t = 0
    for i in range(n):
        await asyncio.sleep(0)
        t += len(json.dumps(list(range(i))))
    return t
class K:
    @staticmethod
    @profile
    def st(s):
        return re.sub(r'\s+', ' ', s)
    @property
    @profile
    def prop(self):
        return sum(1 for _ in PythonLexer().get_tokens(open(__file__).read()))
def outer():
    @profile
    def inner(v):
        return [x * 2 for x in v]
    return inner(list(range(1000)))
print(asyncio.run(coro(200)), K.st("a  b\n c"), K().prop, len(outer()))
lam = profile(lambda q: q * 3)
lam(4)
