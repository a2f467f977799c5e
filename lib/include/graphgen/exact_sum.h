// Exactly rounded sums of doubles: the total of a set of values is the
// double nearest their exact sum, whatever order or grouping they were
// added in (Shewchuk's non-overlapping partials, with the final rounding of
// Python's math.fsum). Merging uses it for floating costs (pstats seconds),
// so one process merging 1000 files in order and sixteen MPI processes
// merging shares of them in a tree give the same bits.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

namespace graphgen {

class ExactSum {
 public:
  ExactSum() = default;
  explicit ExactSum(double x) { add(x); }

  /// Adds x exactly.
  void add(double x) {
    if (!std::isfinite(x)) {
      special_ += x;  // inf and nan do not round: IEEE addition says it all
      has_special_ = true;
      return;
    }
    double* p = data();
    const std::size_t n = size();
    std::size_t i = 0;
    for (std::size_t k = 0; k < n; ++k) {
      double y = p[k];
      if (std::fabs(x) < std::fabs(y)) std::swap(x, y);
      double hi = x + y;
      double lo = y - (hi - x);
      if (lo != 0.0) p[i++] = lo;
      x = hi;
    }
    if (!std::isfinite(x)) {  // the running sum overflowed
      resize(i);
      special_ += x;
      has_special_ = true;
      return;
    }
    resize(i);
    push(x);
  }

  /// Adds another sum exactly (its partials, not its rounded value).
  void add(const ExactSum& other) {
    const double* p = other.data();
    for (std::size_t k = 0, n = other.size(); k < n; ++k) add(p[k]);
    if (other.has_special_) {
      special_ += other.special_;
      has_special_ = true;
    }
  }

  /// The double nearest the exact sum (ties to even).
  double value() const {
    if (has_special_) return special_;
    const double* p = data();
    std::size_t n = size();
    if (n == 0) return 0.0;
    double hi = p[--n], lo = 0.0;
    while (n > 0) {
      double x = hi, y = p[--n];
      hi = x + y;
      double yr = hi - x;
      lo = y - yr;
      if (lo != 0.0) break;
    }
    // Half-way cases: the partials below say which way to round.
    if (n > 0 && ((lo < 0.0 && p[n - 1] < 0.0) || (lo > 0.0 && p[n - 1] > 0.0))) {
      double y = lo * 2.0, x = hi + y;
      if (y == x - hi) hi = x;
    }
    return hi;
  }

  bool empty() const { return size() == 0 && !has_special_; }
  /// The exact state, for sending it elsewhere (graphgen-mpi).
  std::vector<double> partials() const { return std::vector<double>(data(), data() + size()); }
  bool has_special() const { return has_special_; }
  double special() const { return special_; }
  static ExactSum from_parts(const std::vector<double>& partials, bool has_special, double special) {
    ExactSum s;
    for (double p : partials) s.push(p);
    s.has_special_ = has_special;
    s.special_ = special;
    return s;
  }

 private:
  // Partials, non-overlapping, in increasing magnitude: a few in place (the
  // common case, no allocation), more on the heap.
  static constexpr std::size_t kInline = 3;
  const double* data() const { return on_heap_ ? heap_.data() : inline_; }
  double* data() { return on_heap_ ? heap_.data() : inline_; }
  std::size_t size() const { return on_heap_ ? heap_.size() : n_; }
  void resize(std::size_t n) {
    if (on_heap_)
      heap_.resize(n);
    else
      n_ = static_cast<std::uint8_t>(n);
  }
  void push(double x) {
    if (!on_heap_ && n_ < kInline) {
      inline_[n_++] = x;
      return;
    }
    if (!on_heap_) {
      heap_.assign(inline_, inline_ + n_);
      on_heap_ = true;
    }
    heap_.push_back(x);
  }

  double inline_[kInline] = {0, 0, 0};
  std::uint8_t n_ = 0;
  bool on_heap_ = false;
  bool has_special_ = false;
  double special_ = 0.0;
  std::vector<double> heap_;
};

}  // namespace graphgen
