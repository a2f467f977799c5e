// A C++ program for callgrind name tests: a template, a class with methods,
// std::vector and std::map, and virtual calls through a base pointer.
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace geo {

struct Shape {
  virtual ~Shape() = default;
  virtual double area() const = 0;
  virtual const char* name() const = 0;
};

class Rect : public Shape {
 public:
  Rect(double w, double h) : w_(w), h_(h) {}
  double area() const override { return w_ * h_; }
  const char* name() const override { return "rect"; }

 private:
  double w_, h_;
};

class Circle : public Shape {
 public:
  explicit Circle(double r) : r_(r) {}
  double area() const override { return 3.14159 * r_ * r_; }
  const char* name() const override { return "circle"; }

 private:
  double r_;
};

template <typename T>
T total(const std::vector<T>& xs) {
  T s = T();
  for (const T& x : xs) s += x;
  return s;
}

class Registry {
 public:
  void add(std::unique_ptr<Shape> s) { shapes_.push_back(std::move(s)); }
  std::map<std::string, int> count() const {
    std::map<std::string, int> m;
    for (const auto& s : shapes_) ++m[s->name()];
    return m;
  }
  std::vector<double> areas() const {
    std::vector<double> v;
    for (const auto& s : shapes_) v.push_back(s->area());
    return v;
  }

 private:
  std::vector<std::unique_ptr<Shape>> shapes_;
};

}  // namespace geo

int main() {
  geo::Registry reg;
  for (int i = 0; i < 12; ++i) {
    if (i % 3 == 0)
      reg.add(std::unique_ptr<geo::Shape>(new geo::Circle(i)));
    else
      reg.add(std::unique_ptr<geo::Shape>(new geo::Rect(i, i + 1)));
  }
  std::vector<double> a = reg.areas();
  std::vector<int> ints = {1, 2, 3, 4};
  std::map<std::string, int> counts = reg.count();
  std::printf("%.1f %d %zu\n", geo::total(a), geo::total(ints), counts.size());
  return 0;
}
