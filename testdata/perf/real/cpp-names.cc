// A C++ program whose symbols carry what C++ names carry: an anonymous
// namespace, lambdas called through std::function (function types and
// lambda names inside template arguments), a function template over a
// function pointer, a functor's operator(), a user-defined literal
// (operator"" in its name) and a function-local class.
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace {
long churn(long n) {
  std::map<long, long> m;
  for (long i = 0; i < n; ++i) m[(i * 7919) % (n + 13)] += i;
  long s = 0;
  for (auto& [k, v] : m) s += k ^ v;
  return s;
}
}  // namespace

unsigned long long operator""_work(unsigned long long n) { return n * 3 + static_cast<unsigned long long>(churn(static_cast<long>(n))); }

template <class F>
long apply(F f, long n) {
  return f(n);
}

struct Mixer {
  long operator()(long n) const {
    std::string s;
    for (long i = 0; i < n; ++i) s += static_cast<char>('a' + i % 26);
    long h = 0;
    for (char c : s) h = h * 31 + c;
    return h;
  }
};

long local_class(long n) {
  struct Step {
    long run(long k) { return churn(k) + 1; }
  };
  return Step{}.run(n);
}

int main() {
  std::function<long(long)> viaf = [](long n) { return churn(n) + 1; };
  std::vector<std::function<long(long)>> fs = {viaf, Mixer{}, [](long n) { return apply(&churn, n); }};
  long total = 0;
  for (int round = 0; round < 400; ++round) {
    for (auto& f : fs) total += f(2000 + round);
    total += apply(Mixer{}, 3000);
    total += static_cast<long>(1500_work);
    total += local_class(1000 + round);
  }
  std::printf("%ld\n", total);
}
